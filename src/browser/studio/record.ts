// boxflow studio's recorder: what the hand does on the box's screen in the page becomes steps, through
// what the page script (main.ts) gives it (RecordHost).
//
// - A press that stays put is a click: on a small control, a tap on it; inside a large element (a
//   canvas, a map, an image), a tap on it at that point; where there is no element, a tap at a point
//   of the screen, said so.
// - A press that moves is a drag (or a quick swipe) along the pointer's path.
// - Keys typed while the screen has the focus go to the box: text as `type` steps, Enter, Tab,
//   Backspace, Escape and the arrows as `pressKey` steps. Typing is gathered until a pause or another
//   key, and waits its turn: nothing typed is lost while a step runs.
import type { TreeNode } from '../../studio/pageTypes.js';

export interface RecordHost {
  canvas: HTMLCanvasElement;
  studio: { busy: boolean; screen: { width: number; height: number }; tree: { version: number; format: string } };
  /** A mouse event's place in the box's screen pixels. */
  toScreen(e: MouseEvent): { x: number; y: number };
  elementAt(x: number, y: number): TreeNode | undefined;
  menuOpen(): boolean;
  /** An action on an element (`extra` goes in the request body). */
  act(action: string, i: number, extra?: Record<string, unknown>): Promise<boolean>;
  /** A request that adds steps: `what` labels it on the page. */
  perform(what: string, path: string, body: unknown): Promise<boolean>;
  toast(text: string, bad?: boolean): void;
  /** Resolves when no step runs. */
  idle(): Promise<void>;
}

export function studioRecorder(host: RecordHost): void {
  const { canvas, studio } = host;
  /** Key names of the Box API for the keys recorded as pressKey. */
  const keyNames: Record<string, string> = { Enter: 'enter', Tab: 'tab', Backspace: 'backspace', Escape: 'escape', ArrowUp: 'arrowUp', ArrowDown: 'arrowDown', ArrowLeft: 'arrowLeft', ArrowRight: 'arrowRight' };
  /** A text typed is sent after this pause, or at the next key, click or loss of focus. */
  const kTypePauseMs = 1000;

  // Recorded input runs in the order it came, each once the box is free.
  let chain: Promise<unknown> = Promise.resolve();
  let queued = 0;
  const enqueue = (work: () => Promise<unknown>) => {
    queued++;
    chain = chain.then(async () => {
      while (studio.busy) await host.idle();
      await work();
    }).catch(() => {}).finally(() => queued--);
  };

  // ------------------------------------------------------------ keys
  let text = '';
  let textTimer: ReturnType<typeof setTimeout> | undefined;
  const flushText = () => {
    clearTimeout(textTimer);
    if (!text) return;
    const typed = text;
    text = '';
    enqueue(() => host.perform('type', '/api/type', { text: typed }));
  };
  canvas.addEventListener('keydown', (e) => {
    // Shortcuts stay the browser's.
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key.length === 1) {
      text += e.key;
    } else if (e.key === 'Backspace' && text) {
      text = text.slice(0, -1);
    } else {
      const key = keyNames[e.key];
      if (!key) return;
      e.preventDefault();
      flushText();
      enqueue(() => host.perform(`press ${key}`, '/api/key', { key }));
      return;
    }
    e.preventDefault();
    clearTimeout(textTimer);
    textTimer = setTimeout(flushText, kTypePauseMs);
  });
  canvas.addEventListener('blur', flushText);

  // ------------------------------------------------------------ the pointer
  /** An element this large (both sides a quarter of the screen's) is aimed at where the pointer is, not at its centre. */
  const large = (n: TreeNode) => !!n.b && n.b[2] - n.b[0] >= studio.screen.width / 4 && n.b[3] - n.b[1] >= studio.screen.height / 4;
  /** No element to aim at: none there, the page itself, or a bare container as large as the screen. */
  const nothing = (n: TreeNode | undefined) =>
    !n || !n.b || (studio.tree.format === 'html' ? n.tag === 'html' || n.tag === 'body' : !n.id && !n.text && !n.desc && (n.b[2] - n.b[0]) * (n.b[3] - n.b[1]) >= 0.9 * studio.screen.width * studio.screen.height);

  function click(at: { x: number; y: number }): void {
    const n = host.elementAt(at.x, at.y);
    const version = studio.tree.version;
    if (nothing(n)) {
      host.toast('No element there: recorded as a tap at a point of the screen');
      enqueue(() => host.perform('tap at a point of the screen (no element there)', '/api/gesture', { tap: at }));
    } else enqueue(() => host.act('tap', n!.i, { version, ...(large(n!) ? { at } : {}) }));
  }

  let press: { path: { x: number; y: number }[]; started: number; clientX: number; clientY: number } | undefined;
  canvas.addEventListener('pointerdown', (e) => {
    // A click while a step runs means nothing on a screen about to change, unless it follows input still waiting its turn.
    if (e.button !== 0 || host.menuOpen() || (studio.busy && !queued && !text)) return;
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    press = { path: [host.toScreen(e)], started: performance.now(), clientX: e.clientX, clientY: e.clientY };
  });
  canvas.addEventListener('pointermove', (e) => {
    if (press) press.path.push(host.toScreen(e));
  });
  canvas.addEventListener('pointercancel', () => (press = undefined));
  canvas.addEventListener('pointerup', (e) => {
    const p = press;
    press = undefined;
    if (!p) return;
    flushText();
    p.path.push(host.toScreen(e));
    // A press that stayed within a few pixels of where it began is a click; anything else is a drag.
    if (Math.hypot(e.clientX - p.clientX, e.clientY - p.clientY) < 5) return click(p.path[0]!);
    const durationMs = Math.round(performance.now() - p.started);
    enqueue(() => host.perform('drag', '/api/gesture', { path: p.path, durationMs }));
  });
}
