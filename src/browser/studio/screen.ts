// boxflow studio's screen: the box's frames drawn on the page's canvas, from the box's live view
// (its websocket) or, without one, from screenshots.
import { decodeFrame, fitCanvas, frameDrawer, type ScreenSize } from '../screen.js';

export interface ScreenHost {
  canvas: HTMLCanvasElement;
  studio: { frames: number; screen: ScreenSize };
  token: string;
  fpsEl: HTMLElement;
  /** The canvas moved or changed size: what is drawn over it follows. */
  placed(): void;
  /** The screen's size as the layout gives it (for screenshots, which do not say). */
  treeScreen(): ScreenSize | undefined;
}

export function studioScreen(host: ScreenHost) {
  const { canvas, studio, token } = host;
  const fit = () => {
    fitCanvas(canvas, studio.screen);
    if (studio.screen.width && studio.screen.height) host.placed();
  };
  window.addEventListener('resize', fit);
  const setScreen = (width: number, height: number) => {
    if (width === studio.screen.width && height === studio.screen.height) return;
    studio.screen = { width, height };
    fit();
  };
  /** `size`: the screen's size in the box's pixels (0 when not known: the image's own is taken). */
  const draw = frameDrawer<ScreenSize>(canvas, 3000, (bitmap, fps, size) => {
    setScreen(size.width || bitmap.width, size.height || bitmap.height);
    studio.frames++;
    host.fpsEl.textContent = `${studio.screen.width}×${studio.screen.height} · ${fps.toFixed(1)} fps`;
  });
  function watchLive(url: string): void {
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (e) => {
      if (typeof e.data === 'string') return;
      const { meta, image } = decodeFrame(e.data as ArrayBuffer);
      void draw(image, meta);
    };
    ws.onclose = () => setTimeout(() => watchLive(url), 1500);
  }
  async function pollScreen(): Promise<void> {
    try {
      const res = await fetch('/api/screen', { headers: { 'x-studio-token': token } });
      if (res.ok) await draw(await res.blob(), { width: host.treeScreen()?.width ?? 0, height: host.treeScreen()?.height ?? 0 });
    } catch {
      // try again
    }
    setTimeout(() => void pollScreen(), 1000);
  }
  return { setScreen, watchLive, pollScreen };
}
