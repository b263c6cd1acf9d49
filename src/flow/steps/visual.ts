// Screenshot steps: attached, or compared with a baseline.
import type { Selector } from '../../layout/types.js';
import { ref, type Path } from '../parts.js';
import { selectorLabel } from '../labels.js';
import type { Rect, StepBody } from '../types.js';
import { str, runtimeText, isPlainObject, checkSelector, resolveFile, screenshotName, checkName } from './args.js';
import type { NormalizeCtx, StepDefs } from './types.js';

function toSelectorOrRect(v: unknown, ctx: NormalizeCtx, rel: Path): Selector | Rect {
  if (isPlainObject(v) && 'width' in v) return v as unknown as Rect;
  return checkSelector(v as Selector, ctx, rel);
}

export const visualSteps = {
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
} satisfies StepDefs;
