// A trace image is the after-screenshot with the operation drawn on it.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { Point } from '../api/schemas.js';
import { loadCanvas } from './optionalPackages.js';

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

export async function drawTrace(png: Buffer, op: TraceOp): Promise<Buffer> {
  const { createCanvas, loadImage } = await loadCanvas();
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const unit = Math.max(1.5, Math.min(image.width, image.height) / 300);
  if (op.kind === 'drag') drawDrag(ctx, op.path, unit);
  else if (op.kind === 'tap') drawTap(ctx, op.point, unit);
  else drawLabel(ctx, op.text, image.width, image.height, unit);
  // zlib.crc32 came with Node 20.15; before it, the canvas's slower encoder.
  if (typeof zlib.crc32 !== 'function') return canvas.encode('png');
  return encodePng(canvas.data(), image.width, image.height);
}

const kSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const deflateAsync = promisify(zlib.deflate);

/**
 * RGBA pixels as a PNG: no filter, zlib's fastest level, off the main thread. The canvas's own PNG
 * encoder (every filter tried per row, level 6) took ~5× as long for a 1280×800 screenshot, the
 * slowest part of an action's screenshots, for a file only ~5% smaller.
 */
async function encodePng(rgba: Buffer, width: number, height: number): Promise<Buffer> {
  const row = width * 4;
  const rows = Buffer.alloc((row + 1) * height); // each row: filter byte 0, then its pixels
  for (let y = 0; y < height; y++) rgba.copy(rows, y * (row + 1) + 1, y * row, (y + 1) * row);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no interlace
  const idat = await deflateAsync(rows, { level: 1 });
  return Buffer.concat([kSignature, ...chunk('IHDR', header), ...chunk('IDAT', idat), ...chunk('IEND', Buffer.alloc(0))]);
}

/** A PNG chunk as its three parts (length and type, body, CRC of type and body), the body not copied. */
function chunk(type: string, body: Buffer): Buffer[] {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body, zlib.crc32(type)), 0);
  return [head, body, crc];
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

function drawLabel(ctx: SKRSContext2D, text: string, width: number, height: number, unit: number): void {
  const size = Math.round(Math.max(10, 7 * unit));
  ctx.font = `${size}px "DejaVu Sans", sans-serif`;
  const pad = Math.round(size / 2);
  let shown = text;
  const maxWidth = width - 4 * pad;
  while (shown.length > 1 && ctx.measureText(shown).width > maxWidth) shown = `${shown.slice(0, -2)}…`;
  const w = Math.min(width - 2 * pad, ctx.measureText(shown).width + 2 * pad);
  const h = size + 2 * pad;
  const x = Math.round((width - w) / 2);
  const y = height - h - pad;
  ctx.globalAlpha = 0.8;
  ctx.fillStyle = '#111827';
  ctx.fillRect(x, y, w, h);
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(shown, x + pad, y + h / 2);
}
