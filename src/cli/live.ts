// `boxflow test --live`: the live view of each box the run uses, its URL printed as the box's first
// flow begins (and opened in a browser for a person at a terminal), and what runs on the box shown
// over that page: the flow, the running step, its actionId and the steps so far. The page learns it
// from the `runUrl` of boxflow's live-view-url answer (src/api/liveRun.ts); a service whose answer
// has none shows its own page, the screen alone. Nothing here can fail the run: a box without a live
// view is one warning, a page that stops taking the run's state is one more.
import { spawn, spawnSync } from 'node:child_process';
import type { BoxClient } from '../api/client.js';
import { kLiveRunMaxSteps, type LiveRunState, type LiveRunStep } from '../api/liveRun.js';
import type { BoxInfo, FlowInfo, FlowResult, Reporter, StepRecord } from '../runner/types.js';

export interface LiveOptions {
  client: BoxClient;
  /** A line for the person running the tests (stdout). */
  print: (line: string) => void;
  warn: (message: string) => void;
  /** Open each page in the system's browser. */
  open: boolean;
}

/** As Playwright opens its report: only for a person at a terminal, never in CI or with stdout piped (a test, a log). */
export function opensBrowser(stdout: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stdout.isTTY === true && !env.CI;
}

function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
  if (spawnSync('which', [opener]).status === 0) spawn(opener, [url], { stdio: 'ignore', detached: true }).unref();
}

const kText = 300;
const clip = (s: string) => (s.length > kText ? `${s.slice(0, kText - 1)}…` : s);
const kPutTimeoutMs = 10_000;

/** One box's page: the newest state is sent once the one before has been taken; what was overtaken meanwhile is never sent. */
class BoxPage {
  #state: LiveRunState | undefined;
  #dirty = false;
  #sending: Promise<void> | undefined;
  #off = false;

  constructor(
    readonly boxId: string,
    private readonly runUrl: string | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  show(state: LiveRunState): void {
    if (!this.runUrl || this.#off) return;
    this.#state = state;
    this.#dirty = true;
    this.#sending ??= this.#drain();
  }

  /** Resolves once the newest state is on the page (or given up). */
  settled(): Promise<void> {
    return this.#sending ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty && !this.#off) {
        this.#dirty = false;
        const body = JSON.stringify(this.#state);
        try {
          const res = await fetch(this.runUrl!, { method: 'PUT', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(kPutTimeoutMs) });
          const text = await res.text();
          if (res.status >= 300) this.#stop(`it answered ${res.status} ${text.slice(0, 200)}`);
        } catch (err) {
          this.#stop((err as Error).message);
        }
      }
    } finally {
      // In the same turn as the last check of #dirty: a state shown after it starts a new drain.
      this.#sending = undefined;
    }
  }

  #stop(why: string): void {
    this.#off = true;
    this.warn(`the live view of box ${this.boxId} no longer shows the running step: ${why}`);
  }
}

interface FlowOnPage {
  page: BoxPage;
  state: LiveRunState;
}

/** The reporter behind `--live`; its hooks never throw (a reporter error would fail the run). */
export function liveReporter(opts: LiveOptions): Reporter {
  const pages = new Map<string, Promise<BoxPage>>();
  const flows = new Map<string, FlowOnPage>();

  async function open(box: BoxInfo): Promise<BoxPage> {
    try {
      const answer = await opts.client.liveViewUrl(box.id, {}, { maxRetries: 1 });
      opts.print(`live view of box ${box.id}: ${answer.url}`);
      if (opts.open) openInBrowser(answer.url);
      if (!answer.runUrl) opts.print(`  (this service's live view shows the screen only, not the running step)`);
      return new BoxPage(box.id, answer.runUrl, opts.warn);
    } catch (err) {
      opts.warn(`box ${box.id} has no live view: ${(err as Error).message}`);
      return new BoxPage(box.id, undefined, opts.warn);
    }
  }

  const show = (f: FlowOnPage | undefined) => {
    if (!f) return;
    // The newest steps only (the page says how many came before).
    const over = f.state.steps.length - kLiveRunMaxSteps;
    if (over > 0) {
      f.state.steps.splice(0, over);
      f.state.earlier = (f.state.earlier ?? 0) + over;
    }
    f.page.show(structuredClone(f.state));
  };

  return {
    printsToStdio: () => false,
    async onFlowBegin(flow: FlowInfo, attempt: number, box?: BoxInfo) {
      if (!box) return;
      let page = pages.get(box.id);
      if (!page) pages.set(box.id, (page = open(box)));
      const f: FlowOnPage = { page: await page, state: { flow: { name: clip(flow.name), file: clip(flow.file), attempt: Math.min(attempt, 1000), status: 'running' }, steps: [] } };
      flows.set(flow.id, f);
      show(f);
    },
    onStepBegin(flow: FlowInfo, step: { id: string; label: string }) {
      const f = flows.get(flow.id);
      f?.state.steps.push({ id: step.id.slice(0, 64), label: clip(step.label), status: 'running' });
      show(f);
    },
    onStepEnd(flow: FlowInfo, record: StepRecord) {
      const f = flows.get(flow.id);
      // The newest step of that id still running: a retried block runs the same ids again.
      const step: LiveRunStep | undefined = f?.state.steps.findLast((s) => s.id === record.id.slice(0, 64) && s.status === 'running');
      if (!step) return;
      step.status = record.status;
      if (record.actionId) step.actionId = record.actionId.slice(0, 100);
      show(f);
    },
    onFlowEnd(result: FlowResult) {
      const f = flows.get(result.id);
      flows.delete(result.id);
      if (!f) return;
      f.state.flow.status = result.status;
      show(f);
    },
    async onEnd() {
      await Promise.all([...pages.values()].map(async (p) => (await p).settled()));
    },
  };
}
