// Steps that wait for what the screen shows.
import { kSelectorProps, ref } from '../parts.js';
import { quoted, selectorLabel } from '../labels.js';
import type { StepBody } from '../types.js';
import { checkSelector, checkRegex, pickSelector } from './args.js';
import type { StepDefs } from './types.js';

export const assertsSteps = {
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
} satisfies StepDefs;
