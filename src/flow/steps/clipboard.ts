// Steps of the box's clipboard.
import { quoted } from '../labels.js';
import { str, checkRegex } from './args.js';
import type { StepDefs } from './types.js';

export const clipboardSteps = {
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
} satisfies StepDefs;
