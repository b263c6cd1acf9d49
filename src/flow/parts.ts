// Schema building blocks shared by the step table and the flow schema, and the internal issue
// type that the validators throw and the loaders turn into located BoxflowErrors.
import { kKeyNames, kPhases } from '../api/schemas.js';
import { kDurationPattern } from '../api/duration.js';
import type { ErrorCode } from '../errors.js';
import { kAriaRoles, kSelectorKeys as kLayoutSelectorKeys, kTraits, type SelectorKey } from '../layout/types.js';

export type JsonSchema = { [key: string]: unknown };
export type Path = (string | number)[];

export interface IssueOptions {
  /** Point at the key of the last path segment rather than at its value. */
  atKey?: boolean;
  suggestion?: string;
  /** Path printed before the message, when it differs from `path` (unknown keys: the parent). */
  prefix?: Path;
  /** The key at fault when it is not the last path segment (e.g. an unknown bare step name). */
  key?: string;
  code?: ErrorCode;
}

export class FlowIssue extends Error {
  constructor(
    readonly path: Path,
    message: string,
    readonly options: IssueOptions = {},
  ) {
    super(message);
  }
}

/** Several independent issues of one document (one per bad step), reported together. */
export class FlowIssues extends Error {
  constructor(readonly issues: FlowIssue[]) {
    super(issues.map((i) => i.message).join('; '));
  }
}

export const kDirections = ['up', 'down', 'left', 'right'] as const;
export const kVarNamePattern = '^[A-Za-z_][A-Za-z0-9_]*$';
export const kPercentPointPattern = '^\\s*(\\d+(?:\\.\\d+)?)%\\s*,\\s*(\\d+(?:\\.\\d+)?)%\\s*$';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const kKeyAlternation = [...kKeyNames].sort((a, b) => b.length - a.length).map(escapeRe).join('|');
/** `enter`, `control+a`, `control+shift+t`: key names joined by `+`. */
export const kKeyComboPattern = `^(?:${kKeyAlternation})(?:\\+(?:${kKeyAlternation}))*$`;

export const ref = (name: string): JsonSchema => ({ $ref: `#/definitions/${name}` });

export const duration = (description: string): JsonSchema => ({ type: 'string', pattern: kDurationPattern, description });

/** The schema of each selector key; the keys themselves come from layout/types.ts (the compiler checks both agree). */
export const kSelectorProps: Record<SelectorKey, JsonSchema> = {
  text: { type: 'string', description: 'Exact text (whitespace collapsed, case-sensitive), or /regex/flags (a search).' },
  textContains: { type: 'string', description: 'Text containing this substring.' },
  id: { type: 'string', description: 'Android resource-id (whole or the part after /); HTML id; or /regex/flags.' },
  desc: { type: 'string', description: 'Android content-desc; HTML aria-label, alt or title; or /regex/flags.' },
  role: { ...ref('role'), description: 'ARIA role, explicit or implicit (button, link, textbox, checkbox, heading, ...), as getByRole; Android: from the class (Button, EditText, CheckBox, ...).' },
  name: { type: 'string', description: 'With role: the accessible name (aria-labelledby, aria-label, <label>, alt, title, text; Android: content-desc, else text); exact or /regex/flags.' },
  labelText: { type: 'string', description: 'A form field by the text of its <label>, aria-label or aria-labelledby (HTML), as getByLabel; exact or /regex/flags. (`label` is the step\'s title.)' },
  placeholder: { type: 'string', description: 'A field by its placeholder (HTML placeholder, Android hint), as getByPlaceholder; exact or /regex/flags.' },
  class: { type: 'string', description: 'Android class; HTML tag; or /regex/flags.' },
  css: { type: 'string', description: 'CSS selector (HTML boxes).' },
  xpath: { type: 'string', description: 'XPath (Android boxes).' },
  traits: { ...ref('traits'), description: 'All must hold: text (has text), long-text (over 200 characters), square (sides within 3%).' },
  size: { ...ref('size'), description: 'Element size in layout pixels (as points and bounds), each side within ± tolerance (default 0).' },
  index: { type: 'integer', description: 'The n-th match (0-based; -1 is the last), top-to-bottom then left-to-right.' },
  enabled: { type: 'boolean' },
  checked: { type: 'boolean' },
  selected: { type: 'boolean' },
  focused: { type: 'boolean' },
  clickable: { type: 'boolean' },
  scrollable: { type: 'boolean' },
  below: { ...ref('selector'), description: 'Below the element this selector matches.' },
  above: { ...ref('selector'), description: 'Above the element this selector matches.' },
  leftOf: { ...ref('selector'), description: 'Left of the element this selector matches.' },
  rightOf: { ...ref('selector'), description: 'Right of the element this selector matches.' },
  childOf: { ...ref('selector'), description: 'Inside the element this selector matches.' },
  containsChild: { ...ref('selector'), description: 'A direct child matches this selector.' },
  containsDescendants: { type: 'array', items: ref('selector'), minItems: 1, description: 'Each selector matches some descendant.' },
};
export const kSelectorKeys = kLayoutSelectorKeys;

const selectorObject = (extra: Record<string, JsonSchema> = {}, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties: { ...kSelectorProps, ...extra },
  additionalProperties: false,
  ...(required.length ? { required } : {}),
});

const pointObject = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  properties: { x: { type: 'number' }, y: { type: 'number' }, ...extra },
  required: ['x', 'y'],
  additionalProperties: false,
});
const pointArray: JsonSchema = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: '[x, y] in pixels.' };
const promptObject = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  properties: { prompt: { type: 'string', minLength: 1, description: 'Natural-language target; the box resolves it.' }, ...extra },
  required: ['prompt'],
  additionalProperties: false,
});

/** selector | point | {prompt}; `extra` keys are allowed next to the map forms (e.g. longPress duration). */
export function targetSchema(extra: Record<string, JsonSchema> = {}, description?: string): JsonSchema {
  return {
    title: 'a selector, a point or {prompt}',
    description:
      description ?? 'A text selector ("Login"), a selector map ({id: ...}), a point ({x, y}, [x, y] or "50%,80%") or {prompt: "..."}.',
    anyOf: [
      { type: 'string', minLength: 1 },
      pointObject(extra),
      pointArray,
      promptObject(extra),
      selectorObject(extra),
    ],
  };
}

/** Selector-or-rect, for screenshot masks and clips. */
const selectorOrRect: JsonSchema = {
  title: 'a selector or a rect {x, y, width, height}',
  anyOf: [{ type: 'string', minLength: 1 }, ref('selectorObject'), ref('rect')],
};

export const kDefinitions: Record<string, JsonSchema> = {
  duration: duration('<number><ms|s|m|h>, e.g. 500ms, 30s, 5m.'),
  selector: {
    title: 'a selector',
    description: 'A text selector ("Login", "/regex/i") or a map of selector keys, all of which must hold.',
    anyOf: [{ type: 'string', minLength: 1 }, ref('selectorObject')],
  },
  selectorObject: { ...selectorObject(), minProperties: 1 },
  role: { type: 'string', enum: [...kAriaRoles], title: 'an ARIA role (button, link, textbox, checkbox, heading, ...)' },
  target: targetSchema(),
  pathPoint: { title: 'a point {x, y} or [x, y]', anyOf: [pointObject(), pointArray] },
  rect: {
    type: 'object',
    properties: {
      x: { type: 'number' },
      y: { type: 'number' },
      width: { type: 'number', exclusiveMinimum: 0 },
      height: { type: 'number', exclusiveMinimum: 0 },
    },
    required: ['x', 'y', 'width', 'height'],
    additionalProperties: false,
  },
  selectorOrRect,
  traits: { type: 'array', items: { type: 'string', enum: [...kTraits] }, minItems: 1, uniqueItems: true },
  size: {
    type: 'object',
    properties: { width: { type: 'number', minimum: 0 }, height: { type: 'number', minimum: 0 }, tolerance: { type: 'number', minimum: 0 } },
    additionalProperties: false,
    minProperties: 1,
  },
  keyName: { type: 'string', enum: [...kKeyNames], description: 'A key name exactly as the Box API lists it.' },
  condition: {
    type: 'object',
    description: 'Exactly one of visible / notVisible / true.',
    properties: {
      visible: ref('selector'),
      notVisible: ref('selector'),
      true: { type: ['string', 'number', 'boolean'], description: 'Holds unless its text, after ${...}, is blank, false, undefined, null or 0.' },
    },
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  },
  env: {
    type: 'object',
    description: 'Variables for ${NAME}; numbers and booleans become strings.',
    propertyNames: { pattern: kVarNamePattern },
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  },
  steps: { type: 'array', items: ref('step'), minItems: 1 },
};

export const kCommonProps: Record<string, JsonSchema> = {
  label: { type: 'string', description: 'Shown in reports instead of the generated step title.' },
  optional: { type: 'boolean', description: 'A failure is reported as a warning and the flow goes on.' },
  timeout: duration('Step deadline, e.g. 10s.'),
  screenshots: {
    title: 'true, false or a list of before, after, trace',
    description: 'Screenshots for this step: true, false, or the phases to capture (overrides the config).',
    anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', enum: [...kPhases] }, uniqueItems: true }],
  },
};
export const kCommonKeys = Object.keys(kCommonProps);

/** Common misnamings of keys, for "did you mean". */
export const kKeyAliases: Record<string, string> = {
  ctrl: 'control', ctl: 'control', esc: 'escape', return: 'enter', del: 'delete', ins: 'insert',
  up: 'arrowUp', down: 'arrowDown', left: 'arrowLeft', right: 'arrowRight',
  pgup: 'pageUp', pgdn: 'pageDown', pagedown: 'pageDown', pageup: 'pageUp',
  command: 'cmd', super: 'meta', windows: 'win', opt: 'option', caps: 'capsLock', capslock: 'capsLock',
  spacebar: 'space', bksp: 'backspace', back: 'backspace', prtsc: 'printScreen', printscreen: 'printScreen',
};
