// POST /boxes/{boxId}/actions/elements/detect (docs/api.md): the interactive elements on
// the box's screen, without a model, and two images of it: `source` (the screenshot) and `marked`
// (the same with a numbered box around each element; the number is the element's `id`).
//
// Linux boxes: the active tab's elements a user could act on: links, buttons, inputs (not hidden
// ones), selects, textareas, <summary>, media with controls, elements with an interactive ARIA role,
// an onclick attribute, contenteditable or a tabindex of 0 or more, in the document and its open
// shadow roots (not in iframes); disabled and inert ones are left out, and so is any element not in
// the viewport, not rendered (checkVisibility: display, visibility, opacity) or covered at its
// centre by another element (elementFromPoint, as a click there would land elsewhere; its own label
// may cover it). Its box is its part inside the viewport. Found by a script in an isolated world
// of the page (the page's own globals cannot change the answer) over the tab's CDP connection, so
// bounded by the box's CDP timeout.
// Android boxes: the nodes of the uiautomator dump (as screen-layout reads it) that are clickable,
// long-clickable, checkable or an EditText, enabled, not `visible-to-user="false"`, with their
// bounds inside the screen.
//
// Coordinates are in the action scale (PUT /actions/settings; at the default 1 the screen's pixels):
// the pixels of the two images, and the units click, tap and long-press take, so an element handed
// back as their `target` is acted on at its centre. At most kDetectMaxElements elements, in document
// order (`truncated: true` says when there were more). The request runs in the box's queue and has
// an actionId (the `x-boxflow-action-id` header, and `actionId` in the body as screenshot has); its
// images are stored under it with `outputFormat: storageKey`.
import { bodyOf } from '../requestChecks.js';
import { parseDuration } from '../../../api/duration.js';
import { endpoints, kDetectMaxElements, type DetectedElement, type DetectElementsBody } from '../../../api/schemas.js';
import type { FoundElement } from '../../devices/device.js';
import type { BoxCall } from './boxRoute.js';
import type { Answer, Call } from '../call.js';
import { loadCanvas } from '../../host/optionalPackages.js';
import { pngSize } from '../../../png/png.js';
import type { ObjectStore } from '../storage.js';

export interface DetectDeps {
  boxCall: BoxCall<Call>;
  store: ObjectStore;
}

/** An element as a backend finds it: its box in the screen's real pixels. */
type Found = FoundElement;

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The elements in the action scale, clipped to the screen (`width`×`height`, the screenshot's
 * pixels); those with less than a pixel left are dropped. Ids count from 1.
 */
export function inScreen(found: Found[], scale: number, width: number, height: number, source: string): { elements: DetectedElement[]; truncated: boolean } {
  const out: DetectedElement[] = [];
  for (const f of found) {
    const x1 = Math.max(0, f.x * scale);
    const y1 = Math.max(0, f.y * scale);
    const x2 = Math.min(width, (f.x + f.width) * scale);
    const y2 = Math.min(height, (f.y + f.height) * scale);
    if (x2 - x1 < 1 || y2 - y1 < 1) continue;
    if (out.length >= kDetectMaxElements) return { elements: out, truncated: true };
    const w = x2 - x1;
    const h = y2 - y1;
    out.push({ id: String(out.length + 1), x: round(x1), y: round(y1), width: round(w), height: round(h), centerX: round(x1 + w / 2), centerY: round(y1 + h / 2), label: f.label, path: f.path.slice(0, 4096), source, type: f.type });
  }
  return { elements: out, truncated: false };
}

const kColors = ['#e11d48', '#2563eb', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** The screenshot with each element's box drawn and its id in a tag at its top-left corner. */
export async function drawMarked(png: Buffer, elements: readonly DetectedElement[]): Promise<Buffer> {
  const { createCanvas, loadImage } = await loadCanvas();
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const unit = Math.max(1, Math.min(image.width, image.height) / 400);
  const line = Math.max(1, Math.round(unit));
  const size = Math.round(Math.max(10, 6 * unit));
  const pad = Math.round(size / 4);
  ctx.font = `bold ${size}px "DejaVu Sans", sans-serif`;
  ctx.textBaseline = 'middle';
  for (const [i, e] of elements.entries()) {
    const color = kColors[i % kColors.length]!;
    ctx.strokeStyle = color;
    ctx.lineWidth = line;
    ctx.strokeRect(e.x + line / 2, e.y + line / 2, Math.max(0, e.width - line), Math.max(0, e.height - line));
    const w = Math.ceil(ctx.measureText(e.id).width) + 2 * pad;
    const h = size + 2 * pad;
    // Above the box, or inside it at the top when there is no room above; never past the right edge.
    const x = Math.max(0, Math.min(e.x, image.width - w));
    const y = e.y - h >= 0 ? e.y - h : e.y;
    ctx.fillStyle = color;
    ctx.fillRect(x, y, w, h);
    ctx.fillStyle = '#ffffff';
    ctx.fillText(e.id, x + pad, y + h / 2);
  }
  return canvas.encode('png');
}


export function createDetectHandlers(deps: DetectDeps) {
  return {
    detectElements: (call: Call) =>
      deps.boxCall('detectElements', call, async (entry, device): Promise<Answer> => {
        const body = bodyOf(endpoints.detectElements.body, call.body) as DetectElementsBody;
        const format = body.screenshot?.outputFormat ?? 'base64';
        const expiresAt = Date.now() + parseDuration(body.screenshot?.presignedExpiresIn ?? '30m', '/screenshot/presignedExpiresIn');
        await loadCanvas(); // the marked image needs it: refused before the box does anything
        const scale = entry.scale;
        // The box's elements and then its screen.
        const { found, truncated, by } = await device.elements();
        const png = await device.screenshot(scale);
        const { width, height } = pngSize(png, 'the screenshot');
        const { elements, truncated: cut } = inScreen(found, scale, width, height, by);
        const marked = await drawMarked(png, elements);
        const image = async (data: Buffer, name: 'source' | 'marked') => {
          if (format === 'base64') return { uri: `data:image/png;base64,${data.toString('base64')}` };
          const key = `boxes/${entry.record.id}/actions/${call.actionId}/${name}.png`;
          await deps.store.put(key, data, expiresAt);
          return { uri: key, presignedUrl: deps.store.url(call.origin, key, expiresAt) };
        };
        const [source, markedEntry] = await Promise.all([image(png, 'source'), image(marked, 'marked')]);
        return {
          status: 200,
          body: { elements, screenshot: { source, marked: markedEntry }, actionId: call.actionId, ...(truncated || cut ? { truncated: true } : {}) },
        };
      }),
  };
}
