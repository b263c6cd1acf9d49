// A trace image is the after-screenshot with the operation drawn on it.
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { Point } from '../../api/schemas.js';
import { clampRect, overlayPng, pngSize, type Rect } from '../../png/png.js';
import { loadCanvas } from '../host/optionalPackages.js';

/** Coordinates are in the screenshot's (scaled) pixels. */
export type TraceOp =
  | { kind: 'drag'; path: Point[] }
  | { kind: 'tap'; point: Point }
  | { kind: 'label'; text: string };

const kStartColor = '#16a34a';
const kEndColor = '#dc2626';
const kPathColor = '#f59e0b';

/** Throws PACKAGE_UNAVAILABLE (naming the install) when traces cannot be drawn: check before acting. */
export async function traceReady(): Promise<void> {
  await loadCanvas();
}

/**
 * The trace: only the operation's own area is drawn (on a transparent canvas of its size) and blended
 * into the screenshot's rows; the screenshot is never decoded whole.
 */
export async function drawTrace(png: Buffer, op: TraceOp): Promise<Buffer> {
  const { createCanvas } = await loadCanvas();
  const size = pngSize(png, 'the screenshot');
  const unit = Math.max(1.5, Math.min(size.width, size.height) / 300);
  const label = op.kind === 'label' ? labelBox(createCanvas(1, 1).getContext('2d'), op.text, size.width, size.height, unit) : undefined;
  const area = clampRect(op.kind === 'label' ? label! : markBounds(op, unit), size);
  if (!area.width || !area.height) return png;
  const canvas = createCanvas(area.width, area.height);
  const ctx = canvas.getContext('2d');
  ctx.translate(-area.x, -area.y);
  if (op.kind === 'drag') drawDrag(ctx, op.path, unit);
  else if (op.kind === 'tap') drawTap(ctx, op.point, unit);
  else drawLabel(ctx, label!);
  const { data } = ctx.getImageData(0, 0, area.width, area.height);
  return overlayPng(png, { ...area, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }, 'the screenshot');
}

/** What a tap or drag mark covers: its points, plus the largest mark (a tap's ring, a drag's arrow) and a pixel of antialiasing. */
function markBounds(op: Exclude<TraceOp, { kind: 'label' }>, unit: number): Rect {
  const points = op.kind === 'tap' ? [op.point] : op.path;
  const pad = Math.ceil((op.kind === 'tap' ? 15.75 * unit : 9 * unit) + 2);
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const x = Math.min(...xs) - pad;
  const y = Math.min(...ys) - pad;
  return { x, y, width: Math.max(...xs) + pad - x, height: Math.max(...ys) + pad - y };
}

function mark(ctx: SKRSContext2D, p: Point, r: number, color: string, unit: number): void {
  ctx.beginPath();
  ctx.arc(p.x, p.y, r, 0, Math.PI * 2);
  ctx.fillStyle = color;
  ctx.globalAlpha = 0.45;
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.lineWidth = unit;
  ctx.strokeStyle = '#ffffff';
  ctx.stroke();
}

function drawDrag(ctx: SKRSContext2D, path: Point[], unit: number): void {
  ctx.lineWidth = 2 * unit;
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.strokeStyle = kPathColor;
  ctx.beginPath();
  ctx.moveTo(path[0]!.x, path[0]!.y);
  for (const p of path.slice(1)) ctx.lineTo(p.x, p.y);
  ctx.stroke();
  const end = path.at(-1)!;
  const before = [...path].reverse().find((p) => p.x !== end.x || p.y !== end.y);
  if (before) {
    const angle = Math.atan2(end.y - before.y, end.x - before.x);
    const len = 8 * unit;
    ctx.beginPath();
    ctx.moveTo(end.x, end.y);
    ctx.lineTo(end.x - len * Math.cos(angle - 0.45), end.y - len * Math.sin(angle - 0.45));
    ctx.lineTo(end.x - len * Math.cos(angle + 0.45), end.y - len * Math.sin(angle + 0.45));
    ctx.closePath();
    ctx.fillStyle = kPathColor;
    ctx.fill();
  }
  mark(ctx, path[0]!, 6 * unit, kStartColor, unit);
  mark(ctx, end, 6 * unit, kEndColor, unit);
}

function drawTap(ctx: SKRSContext2D, p: Point, unit: number): void {
  mark(ctx, p, 9 * unit, kEndColor, unit);
  ctx.beginPath();
  ctx.arc(p.x, p.y, 15 * unit, 0, Math.PI * 2);
  ctx.lineWidth = 1.5 * unit;
  ctx.strokeStyle = kEndColor;
  ctx.stroke();
}

interface LabelBox extends Rect {
  shown: string;
  size: number;
  pad: number;
}

/** The label's box: centred near the bottom, the text shortened with … to fit the width. */
function labelBox(ctx: SKRSContext2D, text: string, width: number, height: number, unit: number): LabelBox {
  const size = Math.round(Math.max(10, 7 * unit));
  ctx.font = `${size}px "DejaVu Sans", sans-serif`;
  const pad = Math.round(size / 2);
  let shown = text;
  const maxWidth = width - 4 * pad;
  while (shown.length > 1 && ctx.measureText(shown).width > maxWidth) shown = `${shown.slice(0, -2)}…`;
  const w = Math.ceil(Math.min(width - 2 * pad, ctx.measureText(shown).width + 2 * pad));
  const h = size + 2 * pad;
  return { x: Math.round((width - w) / 2), y: height - h - pad, width: w, height: h, shown, size, pad };
}

function drawLabel(ctx: SKRSContext2D, box: LabelBox): void {
  ctx.font = `${box.size}px "DejaVu Sans", sans-serif`;
  ctx.globalAlpha = 0.8;
  ctx.fillStyle = '#111827';
  ctx.fillRect(box.x, box.y, box.width, box.height);
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(box.shown, box.x + box.pad, box.y + box.height / 2);
}
