// Type-aware linting. typescript-eslint needs TypeScript's JavaScript API, which TypeScript 7 (our
// compiler) no longer ships, so its `typescript` imports are pointed at the 6.0 API installed as
// `typescript6`; `tsc` stays TypeScript 7.
import Module from 'node:module';

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const mapped = /^typescript(\/|$)/.test(request) ? request.replace('typescript', 'typescript6') : request;
  return resolveFilename.call(this, mapped, ...rest);
};
const { default: tseslint } = await import('typescript-eslint');

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'reporters/html/viewer/**', 'test/fixtures/flows/ts/syntax.flow.ts', 'flows/**', 'examples/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    // The code keeps a few directives for core rules this config does not switch on.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The pages' scripts are checked with the DOM's types alone.
    files: ['src/browser/**/*.ts'],
    languageOptions: {
      parserOptions: { project: './src/browser/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
