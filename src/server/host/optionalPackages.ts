// Packages loaded at their first use: node-pty and @xterm/xterm are optional peer dependencies (the
// web terminal; node-pty compiles native code); @napi-rs/canvas is a dependency with prebuilt
// binaries (trace images, scaled or clipped Android screenshots), loaded lazily all the same so that
// a binary that fails to load costs a feature, never an action. A missing one is an error naming the install.
import { BoxflowError, type ErrorCode } from '../../errors.js';
import { hidePaths } from './boxFs.js';

/** Loads one optional package; the loader is a parameter so a test can stand in a missing one. */
export function optionalPackage<T>(name: string, feature: string, code: ErrorCode, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      throw new BoxflowError(code, `${feature} needs the npm package ${name}, which ${isMissing(err, name) ? 'is not installed' : `failed to load (${hidePaths(firstLine(err))})`}: run \`npm install ${name}\` where boxflow is installed`, { cause: err });
    }));
}

function isMissing(err: unknown, name: string): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(message).includes(`'${name}'`);
}

export function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}

type Canvas = typeof import('@napi-rs/canvas');

/** @napi-rs/canvas: draws trace images and scales or clips Android screenshots. */
export const loadCanvas = optionalPackage<Canvas>('@napi-rs/canvas', 'drawing screenshots (trace images, scaled or clipped Android screenshots)', 'PACKAGE_UNAVAILABLE', () => import('@napi-rs/canvas'));
