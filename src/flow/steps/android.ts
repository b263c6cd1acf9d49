// Steps of Android packages.
import { baseName } from '../labels.js';
import type { StepBody } from '../types.js';
import { noArg, str, resolveFile } from './args.js';
import type { StepDefs } from './types.js';

export const androidSteps = {
  installApp: {
    description: 'Install an APK from a local path (relative to the flow file) or a URL (Android).',
    example: '- installApp: { apk: ./app.apk, open: true }',
    label: (s, c) => `installApp ${baseName(c, s.apk)}`,
    arg: {
      title: 'a path, a URL or {apk, open}',
      anyOf: [str('Path (relative to this file) or URL of the APK.'), {
        type: 'object',
        properties: { apk: str('Path (relative to this file) or URL of the APK.'), open: { type: 'boolean' } },
        required: ['apk'],
        additionalProperties: false,
      }],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'installApp', apk: resolveFile(a, ctx) };
      const body: StepBody & { kind: 'installApp' } = { kind: 'installApp', apk: resolveFile(a.apk, ctx) };
      if (a.open !== undefined) body.open = a.open;
      return body;
    },
  },
  closeAllApps: {
    description: 'Close every running app (Android).',
    example: '- closeAllApps',
    label: () => 'closeAllApps',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'closeAllApps' }),
  },
  assertPackage: {
    description: 'Assert facts about an Android package.',
    example: '- assertPackage: { package: com.example.app, installed: true, running: false }',
    label: (s, c) => `assertPackage ${c.mask(s.package)}`,
    arg: {
      title: 'a package name or {package, installed, running, type, version, launcher}',
      anyOf: [str('Package name.'), {
        type: 'object',
        properties: {
          package: str('Package name, e.g. com.example.app.'),
          installed: { type: 'boolean' },
          running: { type: 'boolean' },
          type: { type: 'string', enum: ['system', 'thirdParty'] },
          version: { type: 'string' },
          launcher: { type: 'boolean', description: 'Has a launcher activity.' },
        },
        required: ['package'],
        additionalProperties: false,
      }],
    },
    normalize: (a) => (typeof a === 'string' ? { kind: 'assertPackage', package: a } : { kind: 'assertPackage', ...a }),
  },
} satisfies StepDefs;
