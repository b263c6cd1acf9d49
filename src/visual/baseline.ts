// Baseline files: where they live (a path template with tokens), what an update mode does
// with them, and the evidence written next to a failed comparison.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { BoxflowError } from '../errors.js';
import type { Rect } from '../png/png.js';
import { pngText, withPngText } from '../png/text.js';

export const kDefaultBaselineTemplate = '{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png';

export interface BaselineTokens {
  /** Directory of the flow file. Used as a path, not sanitised. */
  flowDir: string;
  /** Flow name (usually the file name without extension). */
  flowName: string;
  /** Screenshot name from the step. */
  name: string;
  /** `android` or `linux`. */
  boxType: string;
  /** Defaults to the host's process.platform. */
  platform?: string;
  /** Directory of the config file; a relative template resolves against it (else the cwd). */
  configDir?: string;
  /** Any further tokens ({boxId}, {resolution}, ...); values are sanitised like names. */
  [token: string]: string | undefined;
}

const kPathTokens = new Set(['flowDir', 'configDir']);

/** Makes one path segment safe on every common file system. */
export function sanitizeSegment(value: string): string {
  let s = value.normalize('NFC').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/-{2,}/g, '-');
  s = s.replace(/^[-.]+|[-.]+$/g, '');
  if (!s) s = '_';
  if (/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(s)) s = `_${s}`;
  return s.length > 120 ? s.slice(0, 120) : s;
}

/**
 * Fills a baseline path template. `{flowDir}` and `{configDir}` are inserted as paths; every
 * other token is sanitised into one file-name-safe segment. Unknown tokens are an error.
 */
export function resolveBaselinePath(template: string | undefined, tokens: BaselineTokens): string {
  const values: Record<string, string | undefined> = { platform: process.platform, ...tokens };
  const filled = (template || kDefaultBaselineTemplate).replace(/\{([^{}]*)\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) {
      const known = Object.keys(values).filter((k) => values[k] !== undefined).map((k) => `{${k}}`).join(', ');
      throw new BoxflowError('CONFIG_INVALID', `unknown token {${key}} in the screenshot path template "${template}"; known tokens: ${known}`);
    }
    return kPathTokens.has(key) ? v : sanitizeSegment(v);
  });
  const path = normalize(filled);
  return isAbsolute(path) ? path : resolve(tokens.configDir ?? process.cwd(), path);
}

/**
 * Playwright's `updateSnapshots` modes. `default` (no flag): a missing baseline is written and the
 * assertion that wrote it fails; `missing`, `changed` (also writes missing ones) and `all` write and
 * pass; `none` writes nothing.
 */
export type UpdateMode = 'default' | 'missing' | 'changed' | 'all' | 'none';
/** The modes a user names (`--update-snapshots=<mode>`, `baselines.update`). */
export const kUpdateModes: readonly UpdateMode[] = ['missing', 'changed', 'all', 'none'];
/** Why a baseline was written. */
export type BaselineWritten = Exclude<UpdateMode, 'none' | 'default'>;

export type BaselineAction = 'compare' | 'write-missing' | 'write-changed' | 'write-all' | 'fail-missing';

/**
 * What to do with a baseline. Call with `pass: null` before comparing, and again with the
 * comparison's outcome. 'compare' means "compare, or keep the comparison's verdict".
 */
export function decideBaseline(mode: UpdateMode, exists: boolean, pass: boolean | null): BaselineAction {
  if (!exists) return mode === 'none' ? 'fail-missing' : 'write-missing';
  if (mode === 'all') return 'write-all';
  if (pass === false && mode === 'changed') return 'write-changed';
  return 'compare';
}

/** Where each masked element was (its rectangles, in the image's pixels), by the mask's selector as described. */
export type NamedMasks = Record<string, Rect[]>;

const kMasksKeyword = 'boxflow:masks';

/**
 * Writes a baseline atomically (temp file + rename), creating its directory. `masks` go inside the
 * PNG: where each masked element was when the baseline was taken. A masked element that changes size
 * (a clock going from 9 to 10) covers other pixels in the next screenshot, and the comparison must
 * ignore both places (baselineMasks).
 */
export async function writeBaseline(path: string, png: Buffer, masks?: NamedMasks): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, masks && Object.keys(masks).length ? withPngText(png, kMasksKeyword, JSON.stringify(masks)) : png);
  await rename(tmp, path);
}

const isRect = (r: unknown): r is Rect => typeof r === 'object' && r !== null && (['x', 'y', 'width', 'height'] as const).every((k) => Number.isFinite((r as Record<string, unknown>)[k]));

/** The masks a baseline was written with (writeBaseline); none for a PNG written otherwise, or one whose note is not what boxflow wrote. */
export function baselineMasks(png: Buffer): NamedMasks {
  const text = pngText(png, kMasksKeyword);
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, Rect[]] => Array.isArray(e[1]) && e[1].every(isRect)));
}

export interface FailureImages {
  expected?: Buffer;
  actual?: Buffer;
  diff?: Buffer;
  previous?: Buffer;
}

export type FailureImagePaths = { [K in keyof FailureImages]?: string };

/** Writes `<name>-expected.png`, `-actual.png`, `-diff.png`, `-previous.png` (those given). */
export async function writeFailureImages(outDir: string, name: string, images: FailureImages): Promise<FailureImagePaths> {
  const base = sanitizeSegment(name);
  const out: FailureImagePaths = {};
  const kinds = (['expected', 'actual', 'diff', 'previous'] as const).filter((k) => images[k]);
  if (!kinds.length) return out;
  await mkdir(outDir, { recursive: true });
  await Promise.all(kinds.map(async (k) => {
    const path = join(outDir, `${base}-${k}.png`);
    await writeFile(path, images[k]!);
    out[k] = path;
  }));
  return out;
}
