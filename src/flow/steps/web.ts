// Steps of web pages (Linux boxes): pointer, form fields, URL and title.
import { kSelectorProps, ref } from '../parts.js';
import { baseName, quoted, selectorLabel, targetLabel } from '../labels.js';
import { str, checkSelector, checkRegex, pickSelector, toTarget, elementTarget, resolveFile } from './args.js';
import type { StepDefs } from './types.js';

export const webSteps = {
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
      // `by` and `option`, not `label`: a step's own `label` is its title in reports. Here `label`
      // is the option's, not the selector key: the <select> is found by its other keys.
      return { kind: 'selectOption', selector: pickSelector(a, ctx, [], ['label']), by: a.label !== undefined ? 'label' : 'value', option: a.label ?? a.value };
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
} satisfies StepDefs;
