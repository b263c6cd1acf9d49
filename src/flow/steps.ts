// The one table of steps: each entry holds the JSON Schema of the step's argument (with every
// shorthand form) and the normaliser that turns a valid argument into a Step body. The published
// schema (schema.ts) and the validators (validate.ts) both read this table, so they cannot drift.
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDuration } from '../api/duration.js';
import type { KeyName } from '../api/schemas.js';
import { parseRegexLiteral } from '../layout/text.js';
import { kNestedKeys, kPatternKeys, type Selector, type SelectorObject } from '../layout/types.js';
import {
  duration,
  kDirections,
  kKeyComboPattern,
  kPercentPointPattern,
  kSelectorKeys,
  kSelectorProps,
  ref,
  targetSchema,
  type IssueOptions,
  type JsonSchema,
  type Path,
} from './parts.js';
import { baseName, clip, kNoMask, quoted, selectorLabel, targetLabel, type LabelCtx } from './labels.js';
import type { Condition, DeviceSettings, ElementPoint, GeoPoint, PermissionValue, Rect, Step, StepBody, StepKind, Target } from './types.js';

export interface NormalizeCtx {
  /** Absolute path of the flow file (relative paths in steps resolve against its folder). */
  file: string;
  /** Path of the step's argument. */
  path: Path;
  /** Normalises a nested step list found at `rel` below the argument. */
  steps(list: unknown[], rel: Path): Step[];
  fail(rel: Path, message: string, options?: IssueOptions): never;
}

type StepOf<K extends StepKind> = Extract<Step, { kind: K }>;

/**
 * How the TypeScript API calls the step: a TS flow's `box` and `expect(box)`, and the `box`
 * fixture of boxflow/test (tsApi.ts builds both from these entries). Each call becomes the YAML
 * step `{[name]: arg, ...options}`.
 */
export interface TsCall {
  /** `box.<method>(arg, options)`. */
  method?: string;
  /** `expect(box).<matcher>(arg, options)` (`not.<name>`: `expect(box).not.<name>`). */
  matcher?: string;
  /** `none`: `box.back(options)`; `optional`: `box.launchApp(arg?, options)`, no arg being the bare step. Default: required. */
  arg?: 'none' | 'optional';
  /** Keys of the options object that belong in the step's argument (longPress `duration`, assertScreenshot `mask`, ...). */
  argKeys?: string[];
  /** The key a string argument becomes when argKeys join it in a map (`'Login'` + duration: `{text: 'Login', duration}`). */
  stringKey?: string;
}

export interface StepDef<K extends StepKind = StepKind> {
  description: string;
  /** A correct example, shown when the step is misused. */
  example: string;
  /**
   * The step's title when it has no `label` of its own: in boxflow's reports and, the same, in
   * Playwright's (runner/label.ts, playwright/titles.ts). It reads like the step: `tap #email`.
   */
  label(step: StepOf<K>, ctx: LabelCtx): string;
  /** The method or matcher of the TS API that runs this step, when it has one (else `box.step({...})`). */
  ts?: TsCall;
  /** Takes no argument and may be written as a bare string (`- closeAllApps`). */
  bare?: boolean;
  arg: JsonSchema;
  // The argument has passed `arg` when this runs; it only adds checks a schema cannot express.
  normalize(arg: any, ctx: NormalizeCtx): StepBody;
}

type Direction = (typeof kDirections)[number];
const kPercentRe = new RegExp(kPercentPointPattern);
const noArg: JsonSchema = {
  title: 'empty (this step takes no argument)',
  anyOf: [{ type: 'null' }, { type: 'object', properties: {}, additionalProperties: false }],
};
const str = (description?: string): JsonSchema => ({ type: 'string', minLength: 1, ...(description ? { description } : {}) });
const ms = (v: string | undefined): number | undefined => (v === undefined ? undefined : parseDuration(v));
/** A value given as `${...}`: evaluated when the step runs, its type checked then. */
const runtimeText: JsonSchema = { type: 'string', pattern: '\\$\\{', description: 'A ${...} evaluated when the step runs.' };
const isRuntime = (v: unknown): v is string => typeof v === 'string' && v.includes('${');
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkSelector(sel: Selector, ctx: NormalizeCtx, rel: Path): Selector {
  if (typeof sel === 'string') {
    checkRegex(sel, ctx, rel);
    return sel;
  }
  for (const k of kPatternKeys) {
    const text = sel[k];
    if (text !== undefined) checkRegex(text, ctx, [...rel, k]);
  }
  if (sel.size && sel.size.width === undefined && sel.size.height === undefined) ctx.fail([...rel, 'size'], 'needs width, height or both (tolerance alone matches any size)');
  for (const k of kNestedKeys) {
    const inner = sel[k];
    if (Array.isArray(inner)) inner.forEach((s, i) => checkSelector(s, ctx, [...rel, k, i]));
    else if (inner !== undefined) checkSelector(inner, ctx, [...rel, k]);
  }
  return sel;
}

/** A `/regex/flags` that does not compile fails at load time, at its place; one holding `${NAME}` is checked when it runs. */
function checkRegex(text: string, ctx: NormalizeCtx, rel: Path): void {
  if (text.includes('${')) return;
  try {
    parseRegexLiteral(text);
  } catch (err) {
    const cause = (err as Error).cause;
    ctx.fail(rel, `${JSON.stringify(text)} is not a valid regular expression: ${cause instanceof Error ? cause.message : (err as Error).message}`);
  }
}

/** The selector keys of a map that may also hold other keys (longPress duration, assertLayout count, ...). */
function pickSelector(arg: Record<string, unknown>, ctx: NormalizeCtx, rel: Path = []): SelectorObject {
  const sel: Record<string, unknown> = {};
  for (const k of kSelectorKeys) if (arg[k] !== undefined) sel[k] = arg[k];
  if (!Object.keys(sel).length) ctx.fail(rel, `needs at least one selector key (${kSelectorKeys.slice(0, 7).join(', ')}, ...)`);
  return checkSelector(sel as SelectorObject, ctx, rel) as SelectorObject;
}

function percentOf(text: string, ctx: NormalizeCtx, rel: Path): { x: number; y: number } | undefined {
  const m = kPercentRe.exec(text);
  if (!m) {
    if (text.includes('%') && /^[\s\d.,%+-]+$/.test(text)) {
      ctx.fail(rel, `"${text}" is not a point: write "x%,y%" with percentages from 0 to 100, e.g. "50%,80%"`);
    }
    return undefined;
  }
  const x = Number(m[1]);
  const y = Number(m[2]);
  if (x > 100 || y > 100) ctx.fail(rel, `"${text}" is off the screen: percentages go from 0 to 100`);
  return { x, y };
}

function toTarget(v: unknown, ctx: NormalizeCtx, rel: Path = []): Target {
  if (typeof v === 'string') {
    const percent = percentOf(v, ctx, rel);
    return percent ? { percent } : { selector: checkSelector(v, ctx, rel) };
  }
  if (Array.isArray(v)) return { point: { x: v[0] as number, y: v[1] as number } };
  const o = v as Record<string, unknown>;
  if (o.point !== undefined && (typeof o.prompt === 'string' || typeof o.x === 'number')) {
    ctx.fail([...rel, 'point'], 'point is a place inside an element: give it with selector keys, e.g. { id: card, point: "50%,90%" }', { atKey: true });
  }
  if (typeof o.prompt === 'string') return { prompt: o.prompt };
  if (typeof o.x === 'number' && typeof o.y === 'number') return { point: { x: o.x, y: o.y } };
  // `point` without selector keys: a point of the screen ("x,y" pixels, "x%,y%"), or a ${...} giving one when the step runs.
  if (o.point !== undefined && !kSelectorKeys.some((k) => o[k] !== undefined)) return screenPointOf(String(o.point), ctx, [...rel, 'point']);
  const selector = pickSelector(o, ctx, rel);
  if (o.point === undefined) return { selector };
  // A ${...} point is evaluated, and its form checked, when the step runs (runner/steps/target.ts).
  return { selector, point: isRuntime(o.point) ? o.point : elementPointOf(String(o.point), ctx, [...rel, 'point']) };
}

/** A point of the screen given as `point` alone: "x%,y%" (0 to 100) or "x,y" pixels; a ${...} is kept for the step's run. */
function screenPointOf(text: string, ctx: NormalizeCtx, rel: Path): Target {
  if (isRuntime(text)) return { runtimePoint: text };
  const percent = percentOf(text, ctx, rel);
  if (percent) return { percent };
  const px = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!px) ctx.fail(rel, `"${text}" is not a point of the screen: write "x,y" (pixels) or "x%,y%" (percent of the screen), or give selector keys for a point inside an element`);
  return { point: { x: Number(px[1]), y: Number(px[2]) } };
}

/** A point inside an element: "x%,y%" of its bounds (0 to 100), or "x,y" pixels from its top-left. */
const kElementPointRe = /^\s*(\d+(?:\.\d+)?)(%?)\s*,\s*(\d+(?:\.\d+)?)(%?)\s*$/;
const elementPoint: JsonSchema = {
  anyOf: [{ type: 'string', pattern: kElementPointRe.source }, runtimeText],
  description:
    'A point inside the element instead of its centre: "x%,y%" of its bounds (0 to 100), or "x,y" pixels from its top-left. ' +
    'Without selector keys, a point of the screen: "x,y" pixels or "x%,y%". A ${...} giving one is evaluated when the step runs.',
};

function elementPointOf(text: string, ctx: NormalizeCtx, rel: Path): ElementPoint {
  const m = kElementPointRe.exec(text);
  if (!m || m[2] !== m[4]) ctx.fail(rel, `"${text}" is not a point inside an element: write "x%,y%" (percent of its bounds) or "x,y" (pixels from its top-left), both parts alike`);
  const p: ElementPoint = { x: Number(m[1]), y: Number(m[3]), unit: m[2] ? '%' : 'px' };
  if (p.unit === '%' && (p.x > 100 || p.y > 100)) ctx.fail(rel, `"${text}" is outside the element: percentages go from 0 to 100`);
  return p;
}

/** A target that may name a point inside its element (tap, longPress, doubleTap, hover, swipe from). */
const elementTarget = (extra: Record<string, JsonSchema> = {}): JsonSchema => targetSchema({ ...extra, point: elementPoint });

const toPoint = (v: unknown): { x: number; y: number } =>
  Array.isArray(v) ? { x: v[0] as number, y: v[1] as number } : { x: (v as { x: number }).x, y: (v as { y: number }).y };

function toSelectorOrRect(v: unknown, ctx: NormalizeCtx, rel: Path): Selector | Rect {
  if (isPlainObject(v) && 'width' in v) return v as unknown as Rect;
  return checkSelector(v as Selector, ctx, rel);
}

function toCondition(v: Record<string, unknown>, ctx: NormalizeCtx, rel: Path): Condition {
  if (v.true !== undefined) return { true: String(v.true) };
  return v.visible !== undefined
    ? { visible: checkSelector(v.visible as Selector, ctx, [...rel, 'visible']) }
    : { notVisible: checkSelector(v.notVisible as Selector, ctx, [...rel, 'notVisible']) };
}

function resolveFile(file: string, ctx: NormalizeCtx): string {
  // Templated paths are resolved by the runner, once their variables are known.
  if (file.includes('${') || /^[a-z][a-z0-9+.-]*:\/\//i.test(file) || isAbsolute(file)) return file;
  return resolve(dirname(ctx.file), file);
}

export const envValues = (env: Record<string, unknown> | undefined): Record<string, string> | undefined =>
  env === undefined ? undefined : Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));

const screenshotName: JsonSchema = { type: 'string', minLength: 1, pattern: '^[^\\\\:*?"<>|]+$', description: 'Baseline / attachment name (no \\ : * ? " < > |).' };
function checkName(name: string, ctx: NormalizeCtx, rel: Path): string {
  if (name.startsWith('/') || name.split('/').includes('..')) ctx.fail(rel, `"${name}" must be a relative name without ".." segments`);
  return name;
}

const kDirection: JsonSchema = { type: 'string', enum: [...kDirections] };

export const kRandomKinds = ['text', 'number', 'email', 'personName', 'cityName', 'countryName', 'colorName'] as const;
type RandomKind = (typeof kRandomKinds)[number];
const appIdArg: JsonSchema = {
  title: 'empty (the flow\'s appId), an app id or {appId}',
  anyOf: [{ type: 'null' }, str('Android package.'), { type: 'object', properties: { appId: str('Android package.') }, additionalProperties: false }],
};
const appIdOf = (a: unknown): { appId?: string } => {
  const id = typeof a === 'string' ? a : isPlainObject(a) ? (a.appId as string | undefined) : undefined;
  return id === undefined ? {} : { appId: id };
};

export const kOrientations = ['portrait', 'landscapeLeft', 'landscapeRight', 'upsideDown'] as const;
const kLatLngPattern = '^\\s*-?\\d+(?:\\.\\d+)?\\s*,\\s*-?\\d+(?:\\.\\d+)?\\s*$';
const permissionsSchema: JsonSchema = {
  type: 'object',
  description: 'Permission names (all, camera, location, notifications, ..., or android.permission.X) to allow, deny or unset.',
  additionalProperties: { anyOf: [{ type: 'string', enum: ['allow', 'deny', 'unset'] }, runtimeText] },
  minProperties: 1,
};
const degrees = (min: number, max: number): JsonSchema => ({ anyOf: [{ type: 'number', minimum: min, maximum: max }, runtimeText] });
const geoPointSchema: JsonSchema = {
  type: 'object',
  properties: { latitude: degrees(-90, 90), longitude: degrees(-180, 180) },
  required: ['latitude', 'longitude'],
  additionalProperties: false,
};

/** A path point: {latitude, longitude}, "lat,lng", or a ${...} giving "lat,lng" when the step runs. */
function geoPointOf(p: unknown, ctx: NormalizeCtx, rel: Path): GeoPoint {
  if (isPlainObject(p)) return p as unknown as GeoPoint;
  const text = String(p);
  if (text.includes('${')) return { latitude: text, longitude: '' };
  const [lat, lng] = text.split(',').map((x) => Number(x.trim()));
  if (!(Math.abs(lat!) <= 90 && Math.abs(lng!) <= 180)) ctx.fail(rel, `"${text}" is not a place: latitude from -90 to 90, longitude from -180 to 180`);
  return { latitude: lat!, longitude: lng! };
}

const onOff = (v: boolean | 'toggle') => (v === 'toggle' ? 'toggle' : v ? 'on' : 'off');
const geoLabel = (p: GeoPoint, c: LabelCtx) => (p.longitude === '' ? clip(c, String(p.latitude), 40) : `${clip(c, String(p.latitude), 20)},${clip(c, String(p.longitude), 20)}`);

function deviceLabel(s: DeviceSettings, c: LabelCtx): string {
  const parts: string[] = [];
  if (s.airplaneMode !== undefined) parts.push(`airplaneMode ${onOff(s.airplaneMode)}`);
  if (s.location) parts.push('path' in s.location ? `location along ${s.location.path.length} points` : `location ${geoLabel(s.location, c)}`);
  if (s.permissions) parts.push(`permissions ${Object.entries(s.permissions).map(([k, v]) => `${k} ${v}`).join(', ')}${s.appId ? ` of ${clip(c, s.appId, 40)}` : ''}`);
  if (s.orientation !== undefined) parts.push(`orientation ${clip(c, s.orientation, 20)}`);
  if (s.darkMode !== undefined) parts.push(`darkMode ${onOff(s.darkMode)}`);
  if (s.clipboard !== undefined) parts.push(`clipboard ${quoted(c, s.clipboard, 20)}`);
  if (s.media) parts.push(`media ${s.media.map((f) => baseName(c, f)).join(', ')}${s.album !== undefined ? ` to ${clip(c, s.album, 30)}` : ''}`);
  if (s.clearKeychain) parts.push('clearKeychain');
  return parts.join(', ');
}

/** A condition as a label: `visible "Login"`, `not visible #spinner`, or the text of a `true`. */
function conditionLabel(w: Condition, c: LabelCtx): string {
  return w.true !== undefined ? clip(c, w.true, 60) : w.visible !== undefined ? `visible ${selectorLabel(w.visible, c)}` : `not visible ${selectorLabel(w.notVisible!, c)}`;
}

export const stepDefs = {
  tap: {
    description: 'Tap an element, a point or a natural-language target.',
    example: '- tap: Login',
    label: (s, c) => `tap ${targetLabel(s.target, c)}`,
    ts: { method: 'tap' },
    arg: elementTarget(),
    normalize: (a, ctx) => ({ kind: 'tap', target: toTarget(a, ctx) }),
  },
  longPress: {
    description: 'Press and hold (default 1s). Map forms may add `duration`.',
    example: '- longPress: { text: Photo, duration: 2s }',
    label: (s, c) => `longPress ${targetLabel(s.target, c)}${s.duration !== 1000 ? ` ${s.duration} ms` : ''}`,
    ts: { method: 'longPress', argKeys: ['duration'], stringKey: 'text' },
    arg: elementTarget({ duration: duration('How long to hold (default 1s).') }),
    normalize: (a, ctx) => ({
      kind: 'longPress',
      target: toTarget(a, ctx),
      duration: (isPlainObject(a) ? ms(a.duration as string | undefined) : undefined) ?? 1000,
    }),
  },
  doubleTap: {
    description: 'Double-tap an element or a point: on Linux boxes a real double click (dblclick).',
    example: '- doubleTap: { css: ".todo label" }',
    label: (s, c) => `doubleTap ${targetLabel(s.target, c)}`,
    arg: elementTarget(),
    normalize: (a, ctx) => ({ kind: 'doubleTap', target: toTarget(a, ctx) }),
  },
  hover: {
    description: 'Move the mouse over an element or a point and leave it there (Linux boxes).',
    example: '- hover: { text: Products }',
    label: (s, c) => `hover ${targetLabel(s.target, c)}`,
    arg: elementTarget(),
    normalize: (a, ctx) => ({ kind: 'hover', target: toTarget(a, ctx) }),
  },
  selectOption: {
    description: 'Choose the option of a <select> (Linux boxes) by its label (the text shown) or its value.',
    example: '- selectOption: { css: "#country", label: France }',
    label: (s, c) => `selectOption ${selectorLabel(s.selector, c)} ${s.by === 'value' ? 'value ' : ''}${quoted(c, s.option)}`,
    arg: {
      type: 'object',
      title: 'selector keys with label or value',
      properties: { ...kSelectorProps, label: str('The option\'s text as shown.'), value: str('The option\'s value attribute.') },
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      if ((a.label === undefined) === (a.value === undefined)) ctx.fail([], a.label === undefined ? 'needs label or value' : 'takes label or value, not both');
      // `by` and `option`, not `label`: a step's own `label` is its title in reports.
      return { kind: 'selectOption', selector: pickSelector(a, ctx), by: a.label !== undefined ? 'label' : 'value', option: a.label ?? a.value };
    },
  },
  fill: {
    description: 'Set the value of an input or textarea as typing would (Linux boxes), including date, time and number inputs.',
    example: '- fill: { css: "#birthday", value: 2024-02-29 }',
    label: (s, c) => `fill ${selectorLabel(s.selector, c)} ${quoted(c, s.value, 20)}`,
    arg: {
      type: 'object',
      title: 'selector keys with value',
      properties: { ...kSelectorProps, value: { type: ['string', 'number'], description: 'The new value (date: YYYY-MM-DD, time: HH:MM).' } },
      required: ['value'],
      additionalProperties: false,
    },
    normalize: (a, ctx) => ({ kind: 'fill', selector: pickSelector(a, ctx), value: String(a.value) }),
  },
  check: {
    description: 'Make a checkbox (or radio, switch) checked: taps it only when it is not, then waits until it is.',
    example: '- check: { id: terms }',
    label: (s, c) => `check ${selectorLabel(s.selector, c)}`,
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'check', selector: checkSelector(a, ctx, []) }),
  },
  uncheck: {
    description: 'Make a checkbox (or switch) unchecked: taps it only when it is checked, then waits until it is not.',
    example: '- uncheck: { id: newsletter }',
    label: (s, c) => `uncheck ${selectorLabel(s.selector, c)}`,
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'uncheck', selector: checkSelector(a, ctx, []) }),
  },
  uploadFile: {
    description: 'Give files (relative to this flow file) to an <input type=file> (Linux boxes); the page sees a user\'s choice.',
    example: '- uploadFile: { css: "input[type=file]", file: fixtures/avatar.png }',
    label: (s, c) => `uploadFile ${selectorLabel(s.selector, c)} ${s.files.map((f) => baseName(c, f)).join(', ')}`,
    arg: {
      type: 'object',
      title: 'selector keys with file or files',
      properties: {
        ...kSelectorProps,
        file: str('Path relative to this flow file.'),
        files: { type: 'array', items: str(), minItems: 1, description: 'Several paths (a multiple input).' },
      },
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      if ((a.file === undefined) === (a.files === undefined)) ctx.fail([], a.file === undefined ? 'needs file or files' : 'takes file or files, not both');
      const files = (a.file !== undefined ? [a.file] : a.files) as string[];
      return { kind: 'uploadFile', selector: pickSelector(a, ctx), files: files.map((f) => resolveFile(f, ctx)) };
    },
  },
  assertUrl: {
    description: 'Wait until the active tab\'s URL is this (exact, or /regex/ searched) (Linux boxes).',
    example: '- assertUrl: /\\/welcome$/',
    label: (s, c) => `assertUrl ${c.mask(s.url)}`,
    arg: str('Exact URL or /regex/flags.'),
    normalize: (a, ctx) => {
      checkRegex(a, ctx, []);
      return { kind: 'assertUrl', url: a };
    },
  },
  assertTitle: {
    description: 'Wait until the active tab\'s title is this (exact, or /regex/ searched) (Linux boxes).',
    example: '- assertTitle: Welcome',
    label: (s, c) => `assertTitle ${quoted(c, s.title)}`,
    arg: str('Exact title or /regex/flags.'),
    normalize: (a, ctx) => {
      checkRegex(a, ctx, []);
      return { kind: 'assertTitle', title: a };
    },
  },
  assertClipboard: {
    description:
      'Wait until the box\'s clipboard holds this text (exact, or /regex/ searched), read through the Box API\'s clipboard action ' +
      '(boxflow serve: Linux boxes, the browser\'s clipboard, read by a paste the page sees as Control+V; Android boxes have none to read: UNPROCESSABLE).',
    example: '- assertClipboard: ORDER-1234',
    label: (s, c) => `assertClipboard ${quoted(c, s.text)}`,
    ts: { method: 'assertClipboard' },
    arg: str('Exact text or /regex/flags.'),
    normalize: (a, ctx) => {
      checkRegex(a, ctx, []);
      return { kind: 'assertClipboard', text: a };
    },
  },
  swipe: {
    description:
      'Swipe up/down/left/right across the middle 60% of the screen (or of `on`), from one target to another, ' +
      'or from a target in a direction to near the screen\'s edge (Linux boxes: the mouse wheel over the target).',
    example: '- swipe: up',
    label: (s, c) =>
      s.direction
        ? `swipe ${s.direction}${s.on ? ` on ${selectorLabel(s.on, c)}` : ''}${s.from ? ` from ${targetLabel(s.from, c)}` : ''}`
        : `swipe ${s.from ? targetLabel(s.from, c) : '?'} → ${s.to ? targetLabel(s.to, c) : '?'}`,
    ts: { method: 'swipe' },
    arg: {
      title: 'a direction, {from, to, duration}, {direction, on, duration} or {from, direction, duration}',
      anyOf: [
        kDirection,
        {
          type: 'object',
          properties: { from: elementTarget(), to: elementTarget(), duration: duration('Whole move, e.g. 300ms.') },
          required: ['from', 'to'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { direction: kDirection, on: ref('selector'), duration: duration('Whole move, e.g. 300ms.') },
          required: ['direction'],
          additionalProperties: false,
        },
        {
          type: 'object',
          description: 'From the target (an element\'s centre, or `point` inside it) in the direction, to 10% of the screen from its edge.',
          properties: { from: elementTarget(), direction: kDirection, duration: duration('Whole move, e.g. 300ms.') },
          required: ['from', 'direction'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'swipe', direction: a as Direction };
      const body: StepBody & { kind: 'swipe' } = { kind: 'swipe' };
      if (a.direction !== undefined) body.direction = a.direction;
      if (a.on !== undefined) body.on = checkSelector(a.on, ctx, ['on']);
      if (a.from !== undefined) body.from = toTarget(a.from, ctx, ['from']);
      if (a.to !== undefined) body.to = toTarget(a.to, ctx, ['to']);
      if (a.duration !== undefined) body.duration = parseDuration(a.duration);
      return body;
    },
  },
  drag: {
    description: 'Drag from one target to another, or along a path of points.',
    example: '- drag: { from: { text: Card }, to: "50%,20%", duration: 1s }',
    label: (s, c) => (s.path ? `drag along ${s.path.length} points` : `drag ${s.from ? targetLabel(s.from, c) : '?'} → ${s.to ? targetLabel(s.to, c) : '?'}`),
    ts: { method: 'drag' },
    arg: {
      title: '{from, to, duration} or {path, interval}',
      anyOf: [
        {
          type: 'object',
          properties: { from: ref('target'), to: ref('target'), duration: duration('Whole move (default 500ms).') },
          required: ['from', 'to'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            path: { type: 'array', items: ref('pathPoint'), minItems: 2, description: 'Points in pixels.' },
            interval: duration('Time between two points (default 50ms).'),
          },
          required: ['path'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (a.path !== undefined) {
        const body: StepBody & { kind: 'drag' } = { kind: 'drag', path: (a.path as unknown[]).map(toPoint) };
        if (a.interval !== undefined) body.interval = parseDuration(a.interval);
        return body;
      }
      const body: StepBody & { kind: 'drag' } = { kind: 'drag', from: toTarget(a.from, ctx, ['from']), to: toTarget(a.to, ctx, ['to']) };
      if (a.duration !== undefined) body.duration = parseDuration(a.duration);
      return body;
    },
  },
  scrollUntilVisible: {
    description: 'Swipe until the selector is visible (direction default down, at most maxSwipes, default 10).',
    example: '- scrollUntilVisible: { text: Settings, direction: down, maxSwipes: 5 }',
    label: (s, c) => `scrollUntilVisible ${selectorLabel(s.selector, c)} (${s.direction}${s.center ? ', centred' : ''})`,
    arg: {
      title: 'a selector, or selector keys with direction and maxSwipes',
      anyOf: [
        { type: 'string', minLength: 1 },
        {
          type: 'object',
          properties: {
            ...kSelectorProps,
            direction: { ...kDirection, description: 'Direction of the swipe (default down).' },
            maxSwipes: { type: 'integer', minimum: 1, maximum: 100, description: 'Default 10.' },
            center: { type: 'boolean', description: 'Once visible, swipe on (at most 4 more) until the element is past the middle of the screen (Maestro\'s centerElement).' },
          },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => ({
      kind: 'scrollUntilVisible',
      selector: typeof a === 'string' ? checkSelector(a, ctx, []) : pickSelector(a, ctx),
      direction: (typeof a === 'string' ? undefined : a.direction) ?? 'down',
      maxSwipes: (typeof a === 'string' ? undefined : a.maxSwipes) ?? 10,
      ...(typeof a !== 'string' && a.center ? { center: true } : {}),
    }),
  },
  pressKey: {
    description: 'Press keys: one name, names joined by + (held together), a list (one after another) or {keys, combination}.',
    example: '- pressKey: control+a',
    label: (s) => (s.keyCode !== undefined ? `pressKey keyCode ${s.keyCode}` : `pressKey ${s.keys.join(s.combination ? '+' : ', ')}`),
    ts: { method: 'pressKey' },
    arg: {
      title: 'a key name, keys joined by +, a list of key names or {keys, combination}',
      anyOf: [
        { type: 'string', pattern: kKeyComboPattern },
        { type: 'array', items: ref('keyName'), minItems: 1 },
        {
          type: 'object',
          properties: {
            keys: { type: 'array', items: ref('keyName'), minItems: 1 },
            combination: { type: 'boolean', description: 'true: hold all keys together (default false).' },
          },
          required: ['keys'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { keyCode: { type: 'integer', minimum: 0, maximum: 400, description: 'An Android KEYCODE (KeyEvent.java), e.g. 23 for DPAD_CENTER (Android boxes).' } },
          required: ['keyCode'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (typeof a === 'string') {
        const keys = a.split('+') as KeyName[];
        return { kind: 'pressKey', keys, combination: keys.length > 1 };
      }
      if (Array.isArray(a)) return { kind: 'pressKey', keys: a as KeyName[], combination: false };
      if (a.keyCode !== undefined) return { kind: 'pressKey', keys: [], combination: false, keyCode: a.keyCode };
      return { kind: 'pressKey', keys: a.keys as KeyName[], combination: a.combination ?? false };
    },
  },
  type: {
    description: 'Type text into the focused field.',
    example: '- type: { text: "${USER}", pressEnter: true }',
    label: (s, c) => `type ${quoted(c, s.text, 12)}${s.pressEnter ? ' ⏎' : ''}`,
    ts: { method: 'type' },
    arg: {
      title: 'a string or {text, mode, pressEnter}',
      anyOf: [
        { type: 'string' },
        {
          type: 'object',
          properties: {
            text: { type: 'string' },
            mode: { type: 'string', enum: ['append', 'replace'], description: 'append (default) or replace the field content.' },
            pressEnter: { type: 'boolean' },
          },
          required: ['text'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (typeof a === 'string') return { kind: 'type', text: a };
      const body: StepBody & { kind: 'type' } = { kind: 'type', text: a.text };
      if (a.mode !== undefined) body.mode = a.mode;
      if (a.pressEnter !== undefined) body.pressEnter = a.pressEnter;
      return body;
    },
  },
  setScale: {
    description: 'Set the action scale (0.1 to 1); later steps convert coordinates by it.',
    example: '- setScale: 0.5',
    label: (s) => `setScale ${s.scale}`,
    ts: { method: 'setScale' },
    arg: { type: 'number', minimum: 0.1, maximum: 1 },
    normalize: (a) => ({ kind: 'setScale', scale: a }),
  },
  setResolution: {
    description: 'Set the screen resolution in pixels.',
    example: '- setResolution: { width: 1280, height: 800 }',
    label: (s) => `setResolution ${s.width}×${s.height}`,
    ts: { method: 'setResolution' },
    arg: {
      type: 'object',
      properties: { width: { type: 'integer', minimum: 1 }, height: { type: 'integer', minimum: 1 } },
      required: ['width', 'height'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'setResolution', width: a.width, height: a.height }),
  },
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
  openTab: {
    description: 'Open a browser tab (Linux boxes), optionally checking its title / URL. A path (/login) is relative to the config\'s appBaseUrl.',
    example: '- openTab: http://127.0.0.1:4173/login',
    label: (s, c) => `openTab ${clip(c, s.url, 80)}`,
    ts: { method: 'openTab' },
    arg: {
      title: 'a URL or {url, expect}',
      anyOf: [str('Absolute URL, or a path relative to appBaseUrl.'), {
        type: 'object',
        properties: {
          url: str('Absolute URL, or a path relative to appBaseUrl.'),
          expect: {
            type: 'object',
            properties: { title: { type: 'string' }, url: { type: 'string' } },
            additionalProperties: false,
            minProperties: 1,
          },
        },
        required: ['url'],
        additionalProperties: false,
      }],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'openTab', url: a };
      for (const k of ['title', 'url'] as const) if (a.expect?.[k] !== undefined) checkRegex(a.expect[k], ctx, ['expect', k]);
      return { kind: 'openTab', ...a };
    },
  },
  closeBrowser: {
    description: 'Close the box browser (Linux boxes).',
    example: '- closeBrowser',
    label: () => 'closeBrowser',
    ts: { method: 'closeBrowser', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'closeBrowser' }),
  },
  renameFile: {
    description: 'Rename a file in the box file system.',
    example: '- renameFile: { from: a.txt, to: b.txt, workingDir: /tmp }',
    label: (s, c) => `renameFile ${c.mask(s.from)} → ${c.mask(s.to)}`,
    arg: {
      type: 'object',
      properties: { from: str(), to: str(), workingDir: str() },
      required: ['from', 'to'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'renameFile', ...a }),
  },
  runCommand: {
    description:
      'Run a shell command in the box (Linux boxes: `sh -c` as the box\'s own user, without network; Android: `adb shell`), e.g. to seed data ' +
      'before the steps or clean up in onFinish. Its output is attached to the step; an exit code other than `expectExit` (default 0) fails it. ' +
      'The step\'s `timeout` bounds the command (default 30s).',
    example: '- runCommand: { command: "rm -f downloads/*", expectExit: 0 }',
    label: (s, c) => `runCommand ${quoted(c, s.command, 60)}`,
    ts: { method: 'runCommand', argKeys: ['workingDir', 'expectExit'], stringKey: 'command' },
    arg: {
      title: 'a command, or {command, workingDir, expectExit}',
      anyOf: [
        str('The command, run by sh -c.'),
        {
          type: 'object',
          properties: {
            command: str('The command, run by sh -c.'),
            workingDir: str('Where it runs (a box path; default the box\'s working dir).'),
            expectExit: { type: 'integer', minimum: 0, maximum: 255, description: 'The exit code that passes (default 0).' },
          },
          required: ['command'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) =>
      typeof a === 'string'
        ? { kind: 'runCommand', command: a }
        : { kind: 'runCommand', command: a.command, ...(a.workingDir ? { workingDir: a.workingDir } : {}), ...(a.expectExit !== undefined ? { expectExit: a.expectExit } : {}) },
  },
  deleteMedia: {
    description: 'Delete one media item from an album.',
    example: '- deleteMedia: { album: Camera, media: photo.png }',
    label: (s, c) => `deleteMedia ${c.mask(s.album)}/${c.mask(s.media)}`,
    arg: {
      type: 'object',
      properties: { album: str(), media: str() },
      required: ['album', 'media'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'deleteMedia', album: a.album, media: a.media }),
  },
  deleteAlbum: {
    description: 'Delete a media album.',
    example: '- deleteAlbum: Camera',
    label: (s, c) => `deleteAlbum ${c.mask(s.album)}`,
    arg: {
      title: 'an album name or {album}',
      anyOf: [str('Album name.'), { type: 'object', properties: { album: str() }, required: ['album'], additionalProperties: false }],
    },
    normalize: (a) => ({ kind: 'deleteAlbum', album: typeof a === 'string' ? a : a.album }),
  },
  webTerminal: {
    description: 'Record a pre-signed web-terminal URL in the report.',
    example: '- webTerminal',
    label: () => 'webTerminal',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'webTerminal' }),
  },
  cdpUrl: {
    description: 'Record a pre-signed CDP URL in the report.',
    example: '- cdpUrl',
    label: () => 'cdpUrl',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'cdpUrl' }),
  },
  assertVisible: {
    description: 'Wait until the selector matches a visible element (up to the step timeout, default 5s).',
    example: '- assertVisible: { text: "/Welcome, .+/" }',
    label: (s, c) => `assertVisible ${selectorLabel(s.selector, c)}`,
    ts: { matcher: 'toShow' },
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'assertVisible', selector: checkSelector(a, ctx, []) }),
  },
  assertNotVisible: {
    description: 'Wait until the selector matches no visible element.',
    example: '- assertNotVisible: Loading',
    label: (s, c) => `assertNotVisible ${selectorLabel(s.selector, c)}`,
    ts: { matcher: 'not.toShow' },
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'assertNotVisible', selector: checkSelector(a, ctx, []) }),
  },
  assertLayout: {
    description:
      'Assert on the elements a selector matches: count, text, attributes. Either selector keys with count/attributes ' +
      '(`text` is then the selector text), or {selector, count, text, attributes} (`text` is then the expected text).',
    example: '- assertLayout: { class: li, count: 3 }',
    label: (s, c) =>
      `assertLayout ${selectorLabel(s.selector, c)}${s.count !== undefined ? ` count ${s.count}` : ''}${s.text !== undefined ? ` text ${quoted(c, s.text)}` : ''}`,
    ts: { matcher: 'toHaveLayout' },
    arg: {
      title: 'a selector, selector keys with count/attributes, or {selector, count, text, attributes}',
      anyOf: [
        { type: 'string', minLength: 1 },
        {
          type: 'object',
          properties: {
            ...kSelectorProps,
            count: { type: 'integer', minimum: 0, description: 'Number of matching elements.' },
            attributes: { type: 'object', additionalProperties: { type: 'string' }, description: 'Attribute values of the first match.' },
          },
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            selector: ref('selector'),
            count: { type: 'integer', minimum: 0, description: 'Number of matching elements.' },
            text: { type: 'string', description: 'Expected text of the first match (exact or /regex/).' },
            attributes: { type: 'object', additionalProperties: { type: 'string' }, description: 'Attribute values of the first match.' },
          },
          required: ['selector'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'assertLayout', selector: checkSelector(a, ctx, []) };
      const explicit = a.selector !== undefined;
      const body: StepBody & { kind: 'assertLayout' } = {
        kind: 'assertLayout',
        selector: explicit ? checkSelector(a.selector, ctx, ['selector']) : pickSelector(a, ctx),
      };
      if (a.count !== undefined) body.count = a.count;
      if (explicit && a.text !== undefined) {
        checkRegex(a.text, ctx, ['text']);
        body.text = a.text;
      }
      if (a.attributes !== undefined) body.attributes = a.attributes;
      return body;
    },
  },
  assertScreenshot: {
    description: 'Compare a screenshot with its baseline.',
    example: '- assertScreenshot: { name: home, maxDiffPixelRatio: 0.01, mask: [{ id: clock }] }',
    label: (s, c) => `assertScreenshot ${c.mask(s.name)}${s.crop ? ` of ${isPlainObject(s.crop) && 'width' in s.crop ? 'a region' : selectorLabel(s.crop as Selector, c)}` : ''}`,
    ts: { matcher: 'toMatchScreenshot', argKeys: ['threshold', 'maxDiffPixels', 'maxDiffPixelRatio', 'mask', 'clip', 'crop', 'baseline'], stringKey: 'name' },
    arg: {
      title: 'a name or {name, baseline, threshold, maxDiffPixels, maxDiffPixelRatio, mask, clip, crop}',
      anyOf: [
        screenshotName,
        {
          type: 'object',
          properties: {
            name: screenshotName,
            baseline: str('The baseline image, relative to this flow file (default: the config\'s baselines path template).'),
            threshold: { type: 'number', minimum: 0, maximum: 1, description: 'Per-pixel colour distance (0..1).' },
            maxDiffPixels: { type: 'integer', minimum: 0 },
            maxDiffPixelRatio: {
              anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, runtimeText],
              description: 'Share of pixels that may differ (0..1), or a ${...} giving one when the step runs.',
            },
            mask: { type: 'array', items: ref('selectorOrRect'), description: 'Regions painted over before comparing.' },
            clip: { ...ref('selectorOrRect'), description: 'Compare only this region of whole-screen images.' },
            crop: { ...ref('selectorOrRect'), description: 'Compare only this region, the baseline holding only it (as Maestro\'s cropOn).' },
          },
          required: ['name'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'assertScreenshot', name: checkName(a, ctx, []) };
      const body: StepBody & { kind: 'assertScreenshot' } = { kind: 'assertScreenshot', name: checkName(a.name, ctx, ['name']) };
      for (const k of ['threshold', 'maxDiffPixels', 'maxDiffPixelRatio'] as const) if (a[k] !== undefined) body[k] = a[k];
      if (a.baseline !== undefined) body.baseline = resolveFile(a.baseline, ctx);
      if (a.mask !== undefined) body.mask = (a.mask as unknown[]).map((m, i) => toSelectorOrRect(m, ctx, ['mask', i]));
      if (a.clip !== undefined && a.crop !== undefined) ctx.fail(['crop'], 'takes clip or crop, not both', { atKey: true });
      if (a.clip !== undefined) body.clip = toSelectorOrRect(a.clip, ctx, ['clip']);
      if (a.crop !== undefined) body.crop = toSelectorOrRect(a.crop, ctx, ['crop']);
      return body;
    },
  },
  screenshot: {
    description: 'Attach a screenshot to the report; `crop`: only that element\'s (or rectangle\'s) region.',
    example: '- screenshot: after-login',
    label: (s, c) => `screenshot ${c.mask(s.name)}${s.crop ? ` of ${isPlainObject(s.crop) && 'width' in s.crop ? 'a region' : selectorLabel(s.crop as Selector, c)}` : ''}`,
    ts: { method: 'screenshot' },
    arg: {
      title: 'a name or {name, crop}',
      anyOf: [screenshotName, { type: 'object', properties: { name: screenshotName, crop: ref('selectorOrRect') }, required: ['name'], additionalProperties: false }],
    },
    normalize: (a, ctx) =>
      typeof a === 'string'
        ? { kind: 'screenshot', name: checkName(a, ctx, []) }
        : { kind: 'screenshot', name: checkName(a.name, ctx, ['name']), ...(a.crop !== undefined ? { crop: toSelectorOrRect(a.crop, ctx, ['crop']) } : {}) },
  },
  sleep: {
    description: 'Wait a fixed time (prefer assertVisible, which polls).',
    example: '- sleep: 500ms',
    label: (s) => `sleep ${s.ms} ms`,
    ts: { method: 'sleep' },
    arg: duration('e.g. 500ms, 2s'),
    normalize: (a) => ({ kind: 'sleep', ms: parseDuration(a) }),
  },
  runFlow: {
    description:
      'Run another flow file (relative to this one), or inline `steps`, as a nested step; `when` runs it only if the condition holds, ' +
      '`env` defines variables for it; `stepTimeout` (inline steps) is each step\'s timeout, a duration or a ${...} evaluated when the block runs.',
    example: '- runFlow: { file: login.yaml, env: { USER: bob }, when: { visible: Login } }',
    label: (s, c) => {
      const cond = s.when ? ` if ${conditionLabel(s.when, c)}` : '';
      if (s.file !== undefined) return `runFlow ${baseName(c, s.file)}${cond}`;
      const n = s.steps?.length ?? 0;
      return `runFlow${cond} (${n} step${n === 1 ? '' : 's'})`;
    },
    arg: {
      title: 'a file, {file, env, when} or {steps, env, when, stepTimeout}',
      anyOf: [
        str('Flow file, relative to this file.'),
        {
          type: 'object',
          properties: { file: str('Flow file, relative to this file.'), env: ref('env'), when: ref('condition') },
          required: ['file'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            steps: ref('steps'),
            env: ref('env'),
            when: ref('condition'),
            stepTimeout: { anyOf: [duration('Timeout of each of these steps.'), runtimeText] },
          },
          required: ['steps'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'runFlow', file: resolveFile(a, ctx) };
      const body: StepBody & { kind: 'runFlow' } = a.steps !== undefined ? { kind: 'runFlow', steps: ctx.steps(a.steps, ['steps']) } : { kind: 'runFlow', file: resolveFile(a.file, ctx) };
      if (a.env !== undefined) body.env = envValues(a.env);
      if (a.when !== undefined) body.when = toCondition(a.when, ctx, ['when']);
      if (a.stepTimeout !== undefined) body.stepTimeout = isRuntime(a.stepTimeout) ? a.stepTimeout : parseDuration(a.stepTimeout);
      return body;
    },
  },
  repeat: {
    description: 'Repeat steps `times` times, or while a condition holds (at most `max` rounds); `env` defines variables for these steps only.',
    example: '- repeat: { times: 3, steps: [ { tap: Next } ] }',
    label: (s, c) => {
      if (s.times !== undefined) return `repeat ${typeof s.times === 'string' ? clip(c, s.times, 40) : s.times}×`;
      const cond = conditionLabel(s.while!, c);
      // A one-round loop is a condition guarding steps.
      return s.max === 1 ? `if ${cond}` : `repeat while ${cond}`;
    },
    arg: {
      type: 'object',
      description: 'Exactly one of times / while.',
      properties: {
        times: { anyOf: [{ type: 'integer', minimum: 1 }, runtimeText], description: 'A count, or a ${...} giving one when the loop starts (0: no round).' },
        while: ref('condition'),
        max: { type: 'integer', minimum: 1, description: 'Upper bound of rounds for while.' },
        env: ref('env'),
        steps: ref('steps'),
      },
      required: ['steps'],
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      if ((a.times === undefined) === (a.while === undefined)) {
        ctx.fail([], a.times === undefined ? 'needs either times or while' : 'takes times or while, not both');
      }
      if (a.max !== undefined && a.while === undefined) ctx.fail(['max'], 'max only applies to repeat with while', { atKey: true });
      const body: StepBody & { kind: 'repeat' } = { kind: 'repeat', steps: ctx.steps(a.steps, ['steps']) };
      if (a.times !== undefined) body.times = a.times;
      if (a.while !== undefined) body.while = toCondition(a.while, ctx, ['while']);
      if (a.max !== undefined) body.max = a.max;
      if (a.env !== undefined) body.env = envValues(a.env);
      return body;
    },
  },
  retry: {
    description: 'Run steps; when one fails, run them again, up to `times` more attempts.',
    example: '- retry: { times: 2, steps: [ { tap: Reload } ] }',
    label: (s, c) => `retry up to ${typeof s.times === 'string' ? clip(c, s.times, 40) : s.times}×`,
    arg: {
      type: 'object',
      properties: {
        times: { anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }, runtimeText], description: 'Attempts after the first, or a ${...} giving them when the step runs (0 to 100).' },
        steps: ref('steps'),
      },
      required: ['times', 'steps'],
      additionalProperties: false,
    },
    normalize: (a, ctx) => ({ kind: 'retry', times: a.times, steps: ctx.steps(a.steps, ['steps']) }),
  },
  launchApp: {
    description:
      'Start the app (Android: `appId`, default the flow\'s appId; Linux boxes: open `appId` if it is a URL, else the flow\'s appId URL, else appBaseUrl). ' +
      '`stopApp` (default true) stops it first, `clearState` clears its data first; `arguments` are launch arguments ' +
      '(Android: string extras of the launch intent; Linux boxes: query parameters added to the URL).',
    example: '- launchApp: { appId: com.example.app, clearState: true }',
    label: (s, c) => (s.appId !== undefined ? `launchApp ${clip(c, s.appId, 60)}` : 'launchApp'),
    ts: { method: 'launchApp', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty, an app id, or {appId, clearState, stopApp, arguments}',
      anyOf: [
        { type: 'null' },
        str('Android package, or on a Linux box a URL.'),
        {
          type: 'object',
          properties: {
            appId: str('Android package, or on a Linux box a URL (default: the flow\'s appId).'),
            clearState: { type: 'boolean', description: 'Clear the app\'s data (Linux boxes: cookies and storage) first (default false).' },
            stopApp: { type: 'boolean', description: 'Stop the app (Linux boxes: close the browser) first (default true).' },
            arguments: {
              type: 'object',
              description: 'Launch arguments: Android string extras of the launch intent; Linux boxes: query parameters of the URL.',
              additionalProperties: { type: ['string', 'number', 'boolean'] },
            },
            permissions: { ...permissionsSchema, description: 'Permissions set before the app starts, as setDevice sets them.' },
            clearKeychain: { type: 'boolean', description: 'iOS-only: noted in the report, nothing done (as Maestro on Android and the web).' },
          },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (a === null || typeof a === 'string') return { kind: 'launchApp', stopApp: true, ...(a ? { appId: a } : {}) };
      const body: StepBody & { kind: 'launchApp' } = { kind: 'launchApp', stopApp: a.stopApp ?? true };
      if (a.appId !== undefined) body.appId = a.appId;
      if (a.clearState !== undefined) body.clearState = a.clearState;
      if (a.arguments !== undefined) body.arguments = envValues(a.arguments);
      if (a.permissions !== undefined) body.permissions = a.permissions as Record<string, PermissionValue>;
      if (a.clearKeychain !== undefined) body.clearKeychain = a.clearKeychain;
      return body;
    },
  },
  setDevice: {
    description:
      'Set the device\'s state: `airplaneMode` (true, false or toggle; Linux boxes: the browser offline), `location` (latitude and longitude, ' +
      'or a `path` of "lat,lng" points travelled at `speed` m/s), `permissions` of `appId` (default the flow\'s app; allow, deny or unset; ' +
      '`all`: every permission the app asks for; Linux boxes: the site\'s), `orientation`, `darkMode` (true, false or toggle), `clipboard` ' +
      '(the text pasteText types, also put on the box\'s clipboard where the service has one: boxflow serve\'s Linux boxes), `media` (photos and videos added to the gallery\'s `album`, Android). Android boxes: device commands; Linux boxes: the browser\'s emulation. ' +
      'What a box cannot do fails when it runs, saying why.',
    example: '- setDevice: { location: { latitude: 52.52, longitude: 13.405 } }',
    label: (s, c) => `setDevice ${deviceLabel(s, c)}`,
    arg: {
      type: 'object',
      title: '{airplaneMode, location, permissions, appId, orientation, darkMode, clipboard, media, album, clearKeychain}',
      properties: {
        airplaneMode: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['toggle'] }], description: 'true, false or toggle.' },
        location: {
          title: '{latitude, longitude} or {path, speed}',
          anyOf: [
            geoPointSchema,
            {
              type: 'object',
              properties: {
                path: { type: 'array', items: { anyOf: [geoPointSchema, { type: 'string', pattern: kLatLngPattern }, runtimeText] }, minItems: 1, description: 'Points, each {latitude, longitude} or "lat,lng".' },
                speed: { type: 'number', exclusiveMinimum: 0, description: 'Metres per second (default 4).' },
              },
              required: ['path'],
              additionalProperties: false,
            },
          ],
        },
        permissions: permissionsSchema,
        appId: str('The app whose permissions are set (default: the flow\'s appId; Linux boxes: the site).'),
        orientation: { anyOf: [{ type: 'string', enum: [...kOrientations] }, runtimeText], description: 'portrait, landscapeLeft, landscapeRight or upsideDown.' },
        darkMode: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['toggle'] }], description: 'true, false or toggle.' },
        clipboard: { type: 'string', description: 'The text pasteText types and ${maestro.copiedText} reads, also put on the box\'s clipboard where it has one.' },
        media: { type: 'array', items: str('Path relative to this flow file.'), minItems: 1, description: 'Photos and videos added to the gallery (Android boxes; Linux boxes have none).' },
        album: str('The gallery album media go to (default boxflow).'),
        clearKeychain: { type: 'boolean', description: 'iOS-only: noted in the report, nothing done.' },
      },
      minProperties: 1,
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      const body: StepBody & { kind: 'setDevice' } = { kind: 'setDevice' };
      if (a.airplaneMode !== undefined) body.airplaneMode = a.airplaneMode;
      if (a.location !== undefined) {
        if (a.location.path === undefined) body.location = a.location as GeoPoint;
        else body.location = { path: (a.location.path as unknown[]).map((p, i) => geoPointOf(p, ctx, ['location', 'path', i])), speed: a.location.speed ?? 4 };
      }
      if (a.permissions !== undefined) body.permissions = a.permissions;
      if (a.appId !== undefined) body.appId = a.appId;
      if (a.appId !== undefined && a.permissions === undefined) ctx.fail(['appId'], 'appId names the app whose permissions are set: give permissions too', { atKey: true });
      if (a.orientation !== undefined) body.orientation = a.orientation;
      if (a.darkMode !== undefined) body.darkMode = a.darkMode;
      if (a.clipboard !== undefined) body.clipboard = a.clipboard;
      if (a.media !== undefined) body.media = (a.media as string[]).map((f) => resolveFile(f, ctx));
      if (a.album !== undefined) body.album = a.album;
      if (a.album !== undefined && a.media === undefined) ctx.fail(['album'], 'album names where media go: give media too', { atKey: true });
      if (a.clearKeychain !== undefined) body.clearKeychain = a.clearKeychain;
      return body;
    },
  },
  record: {
    description:
      'Record the box\'s screen from `record: {start: name}` (or `start`) to `record: stop`, which attaches the video to the report ' +
      '(Maestro\'s startRecording/stopRecording; the GBOX recording endpoints). With the config\'s `video` on, the attempt is recorded already: both steps say so and do nothing.',
    example: '- record: { start: checkout }',
    label: (s, c) => (s.action === 'start' ? `record start${s.name !== undefined ? ` ${c.mask(s.name)}` : ''}` : 'record stop'),
    arg: {
      title: 'start, stop or {start: name}',
      anyOf: [{ type: 'string', enum: ['start', 'stop'] }, { type: 'object', properties: { start: screenshotName }, required: ['start'], additionalProperties: false }],
    },
    normalize: (a, ctx) => (typeof a === 'string' ? { kind: 'record', action: a as 'start' | 'stop' } : { kind: 'record', action: 'start', name: checkName(a.start, ctx, ['start']) }),
  },
  assertDevice: {
    description: 'Fail unless the device is in this state: `darkMode` (Android boxes: the system\'s night mode; Linux boxes: the page\'s prefers-color-scheme), `airplaneMode`.',
    example: '- assertDevice: { darkMode: true }',
    label: (s) => `assertDevice ${[s.darkMode !== undefined ? `darkMode ${s.darkMode ? 'on' : 'off'}` : '', s.airplaneMode !== undefined ? `airplaneMode ${s.airplaneMode ? 'on' : 'off'}` : ''].filter(Boolean).join(', ')}`,
    arg: {
      type: 'object',
      title: '{darkMode, airplaneMode}',
      properties: { darkMode: { type: 'boolean' }, airplaneMode: { type: 'boolean' } },
      minProperties: 1,
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'assertDevice', ...a }),
  },
  stopApp: {
    description:
      'Stop the app (Android: force-stop `appId`, default the flow\'s appId; Linux boxes: close the browser). `processDeath: true` ' +
      '(Android): kill its process as the system kills a background app (`am kill`), its saved state kept (Maestro\'s killApp).',
    example: '- stopApp',
    label: (s, c) => `${s.appId !== undefined ? `stopApp ${clip(c, s.appId, 60)}` : 'stopApp'}${s.processDeath ? ' (process death)' : ''}`,
    ts: { method: 'stopApp', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty (the flow\'s appId), an app id or {appId, processDeath}',
      anyOf: [
        { type: 'null' },
        str('Android package.'),
        {
          type: 'object',
          properties: { appId: str('Android package.'), processDeath: { type: 'boolean', description: 'Android: `am kill` instead of force-stop (Linux boxes: the same as stopApp).' } },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => ({ kind: 'stopApp', ...appIdOf(a), ...(isPlainObject(a) && a.processDeath ? { processDeath: true } : {}) }),
  },
  clearState: {
    description: 'Clear the app\'s data (Android: `pm clear` of `appId`, default the flow\'s appId; Linux boxes: cookies, local and session storage of the active tab\'s site).',
    example: '- clearState',
    label: (s, c) => (s.appId !== undefined ? `clearState ${clip(c, s.appId, 60)}` : 'clearState'),
    ts: { method: 'clearState', arg: 'optional' },
    bare: true,
    arg: appIdArg,
    normalize: (a) => ({ kind: 'clearState', ...appIdOf(a) }),
  },
  back: {
    description: 'Press the back button (Android: hardware back; Linux boxes: the tab\'s history back).',
    example: '- back',
    label: () => 'back',
    ts: { method: 'back', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'back' }),
  },
  home: {
    description: 'Press the home button (Android only: a Linux box has no home button).',
    example: '- home',
    label: () => 'home',
    ts: { method: 'home', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'home' }),
  },
  hideKeyboard: {
    description: 'Close the on-screen keyboard (Linux boxes: take the focus off the focused field, so the page sees blur).',
    example: '- hideKeyboard',
    label: () => 'hideKeyboard',
    ts: { method: 'hideKeyboard', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'hideKeyboard' }),
  },
  eraseText: {
    description: 'Erase characters before the cursor of the focused field: a number of them, or (bare) the whole field.',
    example: '- eraseText: 3',
    label: (s) => (s.chars !== undefined ? `eraseText ${s.chars}` : 'eraseText all'),
    ts: { method: 'eraseText', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty (the whole field) or a number of characters',
      anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1, maximum: 1000, description: 'Characters to erase.' }],
    },
    normalize: (a) => (a === null ? { kind: 'eraseText' } : { kind: 'eraseText', chars: a }),
  },
  openLink: {
    description:
      'Open a link (Linux boxes: in a new tab; a path is relative to appBaseUrl). Android: `browser` opens it in the browser (Chrome, else Firefox) ' +
      'rather than the app that claims it; `autoVerify` then answers the "open with" chooser for the flow\'s app and Chrome\'s first-run screens, where they show.',
    example: '- openLink: https://example.com/welcome',
    label: (s, c) => `openLink ${clip(c, s.link, 80)}${s.browser ? ' in the browser' : ''}${s.autoVerify ? ' (auto-verify)' : ''}`,
    ts: { method: 'openLink' },
    arg: {
      title: 'a URL or {link, browser, autoVerify}',
      anyOf: [
        str('Absolute URL, or a path relative to appBaseUrl.'),
        {
          type: 'object',
          properties: {
            link: str(),
            browser: { type: 'boolean', description: 'Android: open it in the browser (default false).' },
            autoVerify: { type: 'boolean', description: 'Android: answer the chooser for the flow\'s app, and Chrome\'s first-run screens (default false).' },
          },
          required: ['link'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) =>
      typeof a === 'string'
        ? { kind: 'openLink', link: a }
        : { kind: 'openLink', link: a.link, ...(a.browser ? { browser: true } : {}), ...(a.autoVerify ? { autoVerify: true } : {}) },
  },
  waitForAnimationToEnd: {
    description: 'Wait until the screen stops changing: two screenshots in a row are the same (within the step timeout).',
    example: '- waitForAnimationToEnd',
    label: () => 'waitForAnimationToEnd',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'waitForAnimationToEnd' }),
  },
  copyTextFrom: {
    description: 'Remember the text of the element the selector finds, for pasteText and ${maestro.copiedText}.',
    example: '- copyTextFrom: { id: order-number }',
    label: (s, c) => `copyTextFrom ${selectorLabel(s.selector, c)}`,
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'copyTextFrom', selector: checkSelector(a, ctx, []) }),
  },
  pasteText: {
    description: 'Type the text the last copyTextFrom remembered into the focused field.',
    example: '- pasteText',
    label: () => 'pasteText',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'pasteText' }),
  },
  inputRandom: {
    description: 'Type random text into the focused field: text, number, email, personName, cityName, countryName or colorName (`length` for text and number, default 8).',
    example: '- inputRandom: email',
    label: (s) => `inputRandom ${s.type}${s.length !== undefined ? ` (length ${s.length})` : ''}`,
    arg: {
      title: 'a kind or {type, length}',
      anyOf: [
        { type: 'string', enum: [...kRandomKinds] },
        {
          type: 'object',
          properties: { type: { type: 'string', enum: [...kRandomKinds] }, length: { type: 'integer', minimum: 1, maximum: 1000 } },
          required: ['type'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'inputRandom', type: a as RandomKind };
      if (a.length !== undefined && a.type !== 'text' && a.type !== 'number') ctx.fail(['length'], `length applies to text and number, not ${a.type}`, { atKey: true });
      return { kind: 'inputRandom', type: a.type, ...(a.length !== undefined ? { length: a.length } : {}) };
    },
  },
  assertTrue: {
    description: 'Fail unless the condition, after ${...} is evaluated, is true: blank, "false", "undefined", "null" and 0 are false.',
    example: '- assertTrue: ${output.count > 2}',
    label: (s, c) => `assertTrue ${clip(c, s.condition, 60)}`,
    arg: { type: ['string', 'number', 'boolean'], description: 'Usually one ${JavaScript expression}.' },
    normalize: (a) => ({ kind: 'assertTrue', condition: String(a) }),
  },
  evalScript: {
    description: 'Run JavaScript in the flow\'s sandbox (`output` is shared by the whole flow, variables are globals, 10s limit). `${expr}` alone is the same as `expr`.',
    example: '- evalScript: output.total = Number(PRICE) * 2',
    label: (s, c) => `evalScript ${clip(c, s.script.replace(/\s+/g, ' '), 60)}`,
    arg: str('JavaScript.'),
    normalize: (a) => ({ kind: 'evalScript', script: a }),
  },
  runScript: {
    description: 'Run a JavaScript file (relative to this flow file) in the flow\'s sandbox; `env` adds variables for that script only.',
    example: '- runScript: { file: scripts/setup.js, env: { USER: bob } }',
    label: (s, c) => `runScript ${baseName(c, s.file)}`,
    arg: {
      title: 'a file or {file, env}',
      anyOf: [str('Script file, relative to this file.'), {
        type: 'object',
        properties: { file: str('Script file, relative to this file.'), env: ref('env') },
        required: ['file'],
        additionalProperties: false,
      }],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'runScript', file: resolveFile(a, ctx) };
      const body: StepBody & { kind: 'runScript' } = { kind: 'runScript', file: resolveFile(a.file, ctx) };
      if (a.env !== undefined) body.env = envValues(a.env);
      return body;
    },
  },
} satisfies { [K in StepKind]: StepDef<K> };

export type StepName = keyof typeof stepDefs;
export const kStepNames = Object.keys(stepDefs) as StepName[];
export const kBareStepNames = kStepNames.filter((n) => (stepDefs[n] as StepDef).bare);
export const stepDef = (name: string): StepDef | undefined =>
  Object.hasOwn(stepDefs, name) ? (stepDefs as Record<string, StepDef>)[name] : undefined;

/**
 * A step's default label, from its entry in the table: what boxflow's reports and Playwright's
 * step titles both show when the step has no `label`. `ctx.mask` hides secrets before values are cut.
 */
export function stepLabel(step: Step, ctx: LabelCtx = kNoMask): string {
  // A step read from a Maestro file reads as its command there (`tapOn id: email`).
  if (step.source?.command) return clip(ctx, step.source.command, 100);
  return (stepDefs[step.kind] as StepDef).label(step, ctx);
}
