// boxflow studio's list of the flow's steps: each with its result, run (▶), moved (↑ ↓) or deleted
// (✕) there; one selected, after which new steps go, else after the step that ran last, else at the
// end, and a mark says where. The page script (main.ts) gives it what it works with (StepListHost).
import type { State, StepView } from '../../studio/pageTypes.js';

export interface StepListHost {
  list: HTMLElement;
  studio: { selected: number | undefined; state: State | undefined };
  el(tag: string, props?: Record<string, string>, ...children: (Node | string)[]): HTMLElement;
  /** A status as a mark (✓, ✗, …). */
  mark(status: string): string;
  api<T>(path: string, body?: unknown): Promise<T>;
  run(step?: number): Promise<void>;
  showResults(steps: StepView[], title: string): void;
  toast(text: string, bad?: boolean): void;
  refresh(): Promise<void>;
}

export function studioStepList(host: StepListHost) {
  const { studio } = host;
  /** The list of steps, with where new steps go: after the selected step, else the step that ran last, else at the end. */
  function render(s: State): void {
    if (studio.selected !== undefined && studio.selected >= s.steps.length) studio.selected = undefined;
    const after = studio.selected ?? s.cursor ?? s.steps.length - 1;
    const marker = () => host.el('li', { class: 'insert', 'data-testid': 'insert-point', title: 'new steps go here' });
    const button = (text: string, testid: string, title: string, click: () => void) => {
      const b = host.el('button', { title, 'data-testid': testid, text });
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        click();
      });
      return b;
    };
    const rows = s.steps.map((st) => {
      const r = s.results[String(st.index)];
      const li = host.el('li', { 'data-testid': 'step', 'data-status': r?.status ?? '', class: st.index === studio.selected ? 'selected' : '', title: 'select: new steps go after this one' },
        host.el('span', { class: 'ln', text: String(st.line) }), host.el('code', { text: st.text }), host.el('span', { class: `st ${r?.status ?? ''}`, 'data-testid': 'step-status', text: r ? host.mark(r.status) : '' }),
        button('▶', 'run-step', 'run this step on the box', () => void host.run(st.index)),
        button('↑', 'step-up', 'move up', () => void edit({ op: 'move', step: st.index, to: st.index - 1 })),
        button('↓', 'step-down', 'move down', () => void edit({ op: 'move', step: st.index, to: st.index + 1 })),
        button('✕', 'step-delete', 'delete this step', () => void edit({ op: 'delete', step: st.index })));
      if (st.index === studio.selected) li.dataset.selected = 'true';
      li.addEventListener('click', () => {
        studio.selected = studio.selected === st.index ? undefined : st.index;
        if (r) host.showResults([r], `step ${st.index + 1}`);
        render(s);
      });
      return li;
    });
    if (s.steps.length) rows.splice(after + 1, 0, marker());
    host.list.replaceChildren(...rows);
  }
  /** Moves or deletes a step; the selection follows the step it was on. */
  async function edit(body: { op: 'move' | 'delete'; step: number; to?: number }): Promise<void> {
    const sel = studio.selected;
    try {
      await host.api('/api/edit', body);
      if (sel !== undefined && body.op === 'delete') studio.selected = sel === body.step ? undefined : sel > body.step ? sel - 1 : sel;
      if (sel !== undefined && body.op === 'move') {
        const order = Array.from({ length: studio.state?.steps.length ?? 0 }, (_, k) => k);
        order.splice(Math.max(0, Math.min(body.to!, order.length - 1)), 0, ...order.splice(body.step, 1));
        studio.selected = order.indexOf(sel);
      }
    } catch (err) {
      host.toast((err as Error).message, true);
    }
    await host.refresh();
  }
  return { render };
}
