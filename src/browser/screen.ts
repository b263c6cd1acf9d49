// A box's screen drawn on a canvas, as the live view and the studio show it: the frames of the live
// view's websocket decoded, drawn one at a time (only the newest waits), and the canvas sized to keep
// the screen's aspect ratio inside its stage.

export interface ScreenSize {
  width: number;
  height: number;
}

/** What a binary frame of the live view's websocket says about its image. */
export interface FrameMeta extends ScreenSize {
  format: string;
  seq: number;
}

/** A binary frame: a 4-byte big-endian length, that many bytes of JSON (FrameMeta), then the image. */
export function decodeFrame(data: ArrayBuffer): { meta: FrameMeta; image: Blob } {
  const length = new DataView(data).getUint32(0);
  const meta = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, length))) as FrameMeta;
  return { meta, image: new Blob([new Uint8Array(data, 4 + length)], { type: `image/${meta.format}` }) };
}

/** Sizes the canvas to the largest that keeps the screen's aspect ratio inside its parent (nothing while the size is unknown). */
export function fitCanvas(canvas: HTMLCanvasElement, screen: ScreenSize): void {
  const stage = canvas.parentElement!;
  const { width, height } = screen;
  if (!width || !height) return;
  const k = Math.min(stage.clientWidth / width, stage.clientHeight / height);
  canvas.style.width = `${Math.floor(width * k)}px`;
  canvas.style.height = `${Math.floor(height * k)}px`;
}

/**
 * Draws images on the canvas one at a time: one that comes while another is drawn waits, and only the
 * newest waits; one that does not decode is skipped. The canvas takes each bitmap's size. After each
 * image drawn, `drawn` gets the bitmap's size, the frames per second over the last `fpsWindowMs`, and
 * the `info` the image came with.
 */
export function frameDrawer<Info>(canvas: HTMLCanvasElement, fpsWindowMs: number, drawn: (bitmap: ScreenSize, fps: number, info: Info) => void) {
  const ctx = canvas.getContext('2d')!;
  let drawing = false;
  let waiting: { image: Blob; info: Info } | undefined;
  const frameTimes: number[] = [];
  async function draw(image: Blob, info: Info): Promise<void> {
    if (drawing) {
      waiting = { image, info };
      return;
    }
    drawing = true;
    try {
      const bitmap = await createImageBitmap(image);
      if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
      }
      ctx.drawImage(bitmap, 0, 0);
      const size = { width: bitmap.width, height: bitmap.height };
      bitmap.close(); // a closed bitmap's size reads 0
      const now = performance.now();
      frameTimes.push(now);
      while (frameTimes.length && frameTimes[0]! < now - fpsWindowMs) frameTimes.shift();
      drawn(size, frameTimes.length / (fpsWindowMs / 1000), info);
    } catch {
      // an image that does not decode: the next one will
    } finally {
      drawing = false;
      const next = waiting;
      waiting = undefined;
      if (next) void draw(next.image, next.info);
    }
  }
  return draw;
}
