// boxflow studio's screen: the box's frames drawn on the page's canvas, from the box's live view
// (its websocket) or, without one, from screenshots. It runs in the browser inside /studio.js
// (src/studio/page.ts passes it to client.ts's studioClient) and may use nothing from outside its
// own body but what the page gives it (ScreenHost).

export interface ScreenHost {
  canvas: HTMLCanvasElement;
  studio: { frames: number; screen: { width: number; height: number } };
  token: string;
  fpsEl: HTMLElement;
  /** The canvas moved or changed size: what is drawn over it follows. */
  placed(): void;
  /** The screen's size as the layout gives it (for screenshots, which do not say). */
  treeScreen(): { width: number; height: number } | undefined;
}

export function studioScreen(host: ScreenHost) {
  const { canvas, studio, token } = host;
  const ctx = canvas.getContext('2d')!;
  const fit = () => {
    const stage = canvas.parentElement!;
    const { width, height } = studio.screen;
    if (!width || !height) return;
    const k = Math.min(stage.clientWidth / width, stage.clientHeight / height);
    canvas.style.width = `${Math.floor(width * k)}px`;
    canvas.style.height = `${Math.floor(height * k)}px`;
    host.placed();
  };
  window.addEventListener('resize', fit);
  const setScreen = (width: number, height: number) => {
    if (width === studio.screen.width && height === studio.screen.height) return;
    studio.screen = { width, height };
    fit();
  };
  let drawing = false;
  let waiting: { blob: Blob; width: number; height: number } | undefined;
  const frameTimes: number[] = [];
  async function draw(blob: Blob, width: number, height: number): Promise<void> {
    if (drawing) {
      waiting = { blob, width, height };
      return;
    }
    drawing = true;
    try {
      const bitmap = await createImageBitmap(blob);
      if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
      }
      ctx.drawImage(bitmap, 0, 0);
      bitmap.close();
      setScreen(width || bitmap.width, height || bitmap.height);
      studio.frames++;
      const now = performance.now();
      frameTimes.push(now);
      while (frameTimes.length && frameTimes[0]! < now - 3000) frameTimes.shift();
      host.fpsEl.textContent = `${studio.screen.width}×${studio.screen.height} · ${(frameTimes.length / 3).toFixed(1)} fps`;
    } catch {
      // a frame that does not decode: the next one will
    } finally {
      drawing = false;
      const next = waiting;
      waiting = undefined;
      if (next) void draw(next.blob, next.width, next.height);
    }
  }
  function watchLive(url: string): void {
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (e) => {
      if (typeof e.data === 'string') return;
      const data = e.data as ArrayBuffer;
      const n = new DataView(data).getUint32(0);
      const meta = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, n))) as { format: string; width: number; height: number };
      void draw(new Blob([new Uint8Array(data, 4 + n)], { type: `image/${meta.format}` }), meta.width, meta.height);
    };
    ws.onclose = () => setTimeout(() => watchLive(url), 1500);
  }
  async function pollScreen(): Promise<void> {
    try {
      const res = await fetch('/api/screen', { headers: { 'x-studio-token': token } });
      if (res.ok) await draw(await res.blob(), host.treeScreen()?.width ?? 0, host.treeScreen()?.height ?? 0);
    } catch {
      // try again
    }
    setTimeout(() => void pollScreen(), 1000);
  }
  return { setScreen, watchLive, pollScreen };
}
