// Screenshot steps: capture a stable frame, compare with the baseline, write the evidence.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { BoxApiError } from '../../api/client.js';
import { decodeDataUri } from '../../api/dataUri.js';
import { BoxflowError, kStepValue } from '../../errors.js';
import type { Rect } from '../../flow/types.js';
import { query, describeSelector } from '../../layout/index.js';
import type { LayoutNode, LayoutTree, Selector } from '../../layout/types.js';
import { baselineMasks, clampRect, compareImages, cropRgba, decideBaseline, decodePng, encodePng, pngSize, resolveBaselinePath, stableCapture, writeBaseline, writeFailureImages, type BaselineWritten, type MaskedFrame, type NamedMasks } from '../../visual/index.js';
import { pollUntil } from '../poll.js';
import { attachEvidence } from './target.js';
import { handler, type StepHandler, type StepRun } from './types.js';

/** One frame: `POST /actions/screenshot` when the server has it, else the after-phase of an empty `type`. */
export async function captureOnce(run: StepRun): Promise<Buffer> {
  const { client, box } = run.rt;
  const { state } = run.rt;
  if (state.captureMode !== 'type') {
    try {
      const shot = await client.screenshot(box.id, { outputFormat: 'base64' }, { signal: run.signal });
      state.captureMode = 'screenshot';
      return shot.presignedUrl && !shot.uri.startsWith('data:') ? client.fetchObject(shot.presignedUrl) : decodeDataUri(shot.uri).bytes;
    } catch (err) {
      if (!(err instanceof BoxApiError && (err.httpStatus === 404 || err.httpStatus === 405) && err.serverCode !== 'BOX_NOT_FOUND')) throw err;
      state.captureMode = 'type';
    }
  }
  const result = await client.type(box.id, { text: '', options: { screenshot: { phases: ['after'], delay: '0ms', outputFormat: 'base64' } } }, { signal: run.signal });
  const uri = result.screenshot?.after?.uri;
  if (!uri) throw new BoxflowError('INVALID_RESPONSE', 'the box returned no after-screenshot for an empty type action');
  return uri.startsWith('data:') ? decodeDataUri(uri).bytes : client.fetchObject(result.screenshot!.after!.presignedUrl ?? uri);
}

function isRect(v: Selector | Rect): v is Rect {
  return typeof v === 'object' && 'width' in v && 'height' in v && 'x' in v && 'y' in v;
}

/**
 * A crop's or clip's selector becomes rectangles from the layout, in the screenshot's (scaled)
 * pixels. Like every selector, they wait for their elements: the layout is polled until each selector matches (all in
 * the same look), within the step's timeout; else ELEMENT_NOT_FOUND naming the one that never did.
 */
async function toRects(run: StepRun, items: (Selector | Rect)[]): Promise<Rect[]> {
  const s = run.rt.state.scale;
  const scaled = (r: Rect): Rect => ({ x: r.x * s, y: r.y * s, width: r.width * s, height: r.height * s });
  const selectors = items.filter((item): item is Selector => !isRect(item));
  let matches: LayoutNode[][] = [];
  if (selectors.length) {
    let last: LayoutTree | undefined;
    let missing: Selector | undefined;
    const found = await pollUntil(async () => {
      last = await run.rt.layout.tree(run.signal);
      run.rt.layout.requireGeometry(last, `clip/crop ${describeSelector(selectors[0]!)}`);
      const each = selectors.map((selector) => query(last!, selector));
      missing = selectors.find((_, i) => !each[i]!.length);
      return missing === undefined ? each : undefined;
    }, run.deadline, run.signal);
    if (!found.value) {
      if (BoxflowError.is(found.lastError) && found.lastError.code !== 'ELEMENT_NOT_FOUND') throw found.lastError;
      const selector = missing ?? selectors[0]!;
      await attachEvidence(run, selector, last);
      throw new BoxflowError('ELEMENT_NOT_FOUND', `clip/crop ${describeSelector(selector)} matches no visible element after ${run.timeoutMs} ms`);
    }
    matches = found.value;
  }
  const out: Rect[] = [];
  let k = 0;
  for (const item of items) {
    if (isRect(item)) {
      out.push(scaled(item));
      continue;
    }
    for (const n of matches[k++]!) {
      const b = n.bounds!;
      out.push(scaled({ x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top }));
    }
  }
  return out;
}

/**
 * Masks as Playwright has them: each selector paints what it matches in one look at the layout, and
 * one that matches nothing masks nothing (never a failure, never a wait). The layout is looked at
 * again for each frame taken, as a masked element may move or grow (a clock going from 9 to 10).
 */
async function lookMasks(run: StepRun, selectors: Selector[]): Promise<{ masks: NamedMasks; unmatched: Selector[] }> {
  const s = run.rt.state.scale;
  const tree = await run.rt.layout.tree(run.signal);
  run.rt.layout.requireGeometry(tree, `mask ${describeSelector(selectors[0]!)}`);
  const masks: NamedMasks = {};
  const unmatched: Selector[] = [];
  for (const selector of selectors) {
    const nodes = query(tree, selector);
    if (!nodes.length) unmatched.push(selector);
    const key = describeSelector(selector);
    masks[key] = [...(masks[key] ?? []), ...nodes.map(({ bounds: b }) => ({ x: b!.left * s, y: b!.top * s, width: (b!.right - b!.left) * s, height: (b!.bottom - b!.top) * s }))];
  }
  return { masks, unmatched };
}

/** What a step notes about masks that matched nothing. */
function unmatchedNote(unmatched: Selector[]): string | undefined {
  if (!unmatched.length) return undefined;
  return `${unmatched.length === 1 ? 'mask' : 'masks'} ${unmatched.map((m) => describeSelector(m)).join(', ')} matched nothing on the screen, so ${unmatched.length === 1 ? 'it masks' : 'they mask'} nothing`;
}

export const screenshot: StepHandler<'screenshot'> = handler(['name', 'crop'], async (step, run) => {
  const crop = step.crop ? (await toRects(run, [step.crop]))[0] : undefined;
  const png = crop ? cropPng(await captureOnce(run), crop) : await captureOnce(run);
  const path = await run.rt.artifacts.put(png, 'png');
  run.record.attachments = [{ name: step.name, path, contentType: 'image/png' }];
  run.record.screenshots = { after: path };
  run.record.message = `captured ${step.name} (${run.rt.state.captureMode === 'type' ? 'after-phase of an empty type' : 'POST /actions/screenshot'})`;
});

/** maxDiffPixelRatio as given, or what its `${...}` gave (checked: a number from 0 to 1); `written` for the message. */
function diffRatio(value: number | string | undefined, written: unknown): number | undefined {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  const n = Number(text);
  if (text === '' || !(n >= 0 && n <= 1)) throw kStepValue('maxDiffPixelRatio', written, text, 'a number from 0 to 1');
  return n;
}

/** The part of a PNG inside `rect` (image pixels), as a PNG. */
function cropPng(png: Buffer, rect: Rect): Buffer {
  const img = decodePng(png, 'screenshot');
  const r = clampRect({ x: Math.round(rect.x), y: Math.round(rect.y), width: Math.round(rect.width), height: Math.round(rect.height) }, img);
  if (r.width <= 0 || r.height <= 0) throw new BoxflowError('ASSERT_SCREENSHOT', `the crop region {x: ${rect.x}, y: ${rect.y}, width: ${rect.width}, height: ${rect.height}} lies outside the screenshot (${img.width}×${img.height})`);
  return encodePng(cropRgba(img, r));
}

export const assertScreenshot: StepHandler<'assertScreenshot'> = handler(['name', 'baseline', 'maxDiffPixelRatio', 'mask', 'clip', 'crop'], async (step, run) => {
  const { rt } = run;
  const { name } = step;
  // An explicit baseline file (relative to the flow file; a `${...}` one resolves now), else the config's template.
  const baseline = step.baseline !== undefined
    ? resolve(dirname(run.flowFile), step.baseline)
    : resolveBaselinePath(rt.options.baselines.pathTemplate, {
      flowDir: dirname(rt.flow.file),
      flowName: rt.flow.name,
      name,
      boxType: rt.box.type,
    });
  const rel = relative(rt.options.rootDir, baseline);
  const outDir = resolve(rt.options.outputDir, 'visual', rt.info.id);
  const outRel = (p: string) => relative(rt.options.outputDir, p);
  const maxDiffPixelRatio = diffRatio(step.maxDiffPixelRatio, (run.written as typeof step).maxDiffPixelRatio);
  const crop = step.crop ? (await toRects(run, [step.crop]))[0] : undefined;
  const clip = step.clip ? (await toRects(run, [step.clip]))[0] : undefined;
  // With a crop, the compared image is that region alone: masks move with it.
  const toImage = (r: Rect): Rect => (crop ? { ...r, x: r.x - crop.x, y: r.y - crop.y } : r);
  const s = rt.state.scale;
  const fixedMasks = (step.mask ?? []).filter(isRect).map((r) => ({ x: r.x * s, y: r.y * s, width: r.width * s, height: r.height * s }));
  const maskSelectors = (step.mask ?? []).filter((m): m is Selector => !isRect(m));
  let unmatched: Selector[] = [];
  // Each frame with where the masked elements were when it was taken (looked up once it came).
  const capture = async (): Promise<MaskedFrame> => {
    const png = await captureOnce(run);
    if (!maskSelectors.length) return { png, masks: {} };
    const look = await lookMasks(run, maskSelectors);
    unmatched = look.unmatched;
    return { png, masks: look.masks };
  };
  try {
    await compareScreen();
  } finally {
    // Said on the step whatever its outcome (the report shows it beside the step).
    const note = unmatchedNote(unmatched);
    if (note) run.record.message = run.record.message ? `${run.record.message}; ${note}` : note;
  }

  async function compareScreen(): Promise<void> {
    const settled = await stableCapture(capture, { timeoutMs: run.timeoutMs, masks: fixedMasks, ...(clip ?? crop ? { clip: (clip ?? crop)! } : {}), signal: run.signal });
    const frame = crop ? { ...settled, png: cropPng(settled.png, crop), ...('previous' in settled ? { previous: cropPng(settled.previous, crop) } : {}) } : settled;
    const frameMasks: NamedMasks = Object.fromEntries(Object.entries(settled.masks).map(([k, rects]) => [k, rects.map(toImage)]));
    const captureMode = rt.state.captureMode ?? 'screenshot';
    const visual: NonNullable<typeof run.record.visual> = { name, baseline: rel, capture: captureMode };
    run.record.visual = visual;
    if (!frame.stable) {
      const files = await writeFailureImages(outDir, name, { actual: frame.png, previous: frame.previous });
      visual.actual = files.actual && outRel(files.actual);
      visual.previous = files.previous && outRel(files.previous);
      throw new BoxflowError('SCREENSHOT_UNSTABLE', `screenshot "${name}" never settled: ${frame.frames} frames within ${run.timeoutMs} ms, no two in a row agreed`);
    }

    const mode = rt.options.baselines.update;
    const exists = existsSync(baseline);
    const write = async (why: BaselineWritten) => {
      await writeBaseline(baseline, frame.png, frameMasks);
      visual.written = why;
      rt.hooks.baselineWritten(rel, why);
      run.record.message = `baseline ${why === 'missing' ? 'written' : 'updated'}: ${rel}`;
    };
    const before = decideBaseline(mode, exists, null);
    if (before === 'fail-missing') {
      const files = await writeFailureImages(outDir, name, { actual: frame.png });
      visual.actual = files.actual && outRel(files.actual);
      throw new BoxflowError('ASSERT_SCREENSHOT', `no baseline at ${rel}; run with --update-snapshots=missing to write it`);
    }
    if (before === 'write-missing') {
      await write('missing');
      // As Playwright's toHaveScreenshot by default: the assertion that wrote a missing baseline fails,
      // so a run cannot go green on images nobody has looked at (in CI above all).
      if (mode === 'default') throw new BoxflowError('ASSERT_SCREENSHOT', `a baseline doesn't exist at ${rel}, writing actual; look at it, then run again (or run with --update-snapshots=missing to write missing baselines and pass)`);
      return;
    }
    if (before === 'write-all') return write('all');

    const expected = await readFile(baseline);
    // A masked element is ignored where it is now and where it was in the baseline (a clock that
    // showed 18 then and shows 4 now); the baseline's masks of selectors the step no longer has are not.
    const then = Object.entries(baselineMasks(expected)).filter(([k]) => k in frameMasks).flatMap(([, rects]) => rects);
    const result = await compareImages(expected, frame.png, {
      threshold: step.threshold,
      maxDiffPixels: step.maxDiffPixels,
      maxDiffPixelRatio,
      masks: [...fixedMasks.map(toImage), ...Object.values(frameMasks).flat(), ...then],
      clip,
    });
    visual.diffPixels = result.diffPixels;
    visual.diffRatio = result.diffRatio;
    if (decideBaseline(mode, true, result.pass) === 'write-changed') return write('changed');
    if (result.pass) {
      run.record.message = `matches ${rel} (${result.diffPixels} pixels differ)`;
      return;
    }
    const files = await writeFailureImages(outDir, name, { expected, actual: frame.png, diff: result.diffPng });
    visual.expected = files.expected && outRel(files.expected);
    visual.actual = files.actual && outRel(files.actual);
    visual.diff = files.diff && outRel(files.diff);
    visual.sizes = { expected: pngSize(expected), actual: pngSize(frame.png) };
    throw new BoxflowError('ASSERT_SCREENSHOT', `screenshot "${name}" differs from ${rel}: ${result.message ?? `${result.diffPixels} pixels differ`}; if the new image is right, accept it with boxflow test --update-snapshots (rewrites the baselines that differ)`);
  }
});

