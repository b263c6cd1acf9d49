// A Selenium Grid 4 as the source of Linux boxes' browsers: the few W3C WebDriver requests serve
// makes of it (new session, delete session, one liveness probe) and what the grid's answers mean.
// Everything else a box does goes over the session's DevTools endpoint (`se:cdp`), see source.ts.
import { BoxflowError } from '../../../errors.js';
import type { Resolution } from '../../../api/schemas.js';
import { kChromiumFlags } from '../linux/chromium/process.js';

export interface GridOptions {
  /** The grid's URL, as WebDriver clients use it: e.g. http://selenium-hub:4444 (a sub-path such as /wd/hub is kept; user:password@ for basic auth). */
  url: string;
  /** `goog:chromeOptions.binary` on the nodes (e.g. /usr/bin/chromium); default: none, the node's own Chrome. */
  chromiumBinary?: string;
  /** How long a new session may wait for a free slot of the grid before 503 GRID_UNAVAILABLE. Default 30 s. */
  sessionTimeoutMs?: number;
  /** How often serve checks that each session is alive (which also keeps it from the grid's idle timeout). Default 5 s. */
  heartbeatMs?: number;
}

export const kDefaultSessionTimeoutMs = 30_000;
export const kDefaultHeartbeatMs = 5_000;
/** A request the grid queued past our wait goes on this long in the background, so that a late session is ended. */
const kLateSessionMs = 10 * 60_000;
const kRequestTimeoutMs = 15_000;
/** Selenium 4.20 reads a body only with this exact content type. */
const kJson = { 'content-type': 'application/json; charset=utf-8' };

/** What a grid session gives serve: its id and its DevTools endpoint. */
export interface GridSession {
  id: string;
  /** `se:cdp`: the grid's proxy of the browser's DevTools (browser endpoint). */
  cdp: string;
  /** The same proxy through the grid's own URL: tried when `cdp` (a node's address) is not reachable from here. */
  cdpViaGrid: string;
  browserVersion: string;
}

export type Liveness = { alive: true } | { alive: false; gone: boolean; reason: string };

interface WireAnswer {
  status: number;
  value: Record<string, unknown> | undefined;
}

/** The first line of a grid's message (Selenium appends build and system info on further lines). */
function firstLine(text: unknown): string {
  return String(text ?? '').split('\n')[0]!.trim().slice(0, 300);
}

/** Why a request got no answer: the socket's code (ECONNREFUSED, ...) or the abort's reason. */
function transportReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? firstLine(cause?.message ?? (err as Error)?.message ?? err);
}

/** `--grid`'s URL, checked: http(s), no query or credentials in a log line. */
export function parseGridUrl(text: string, where = '--grid'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BoxflowError('CONFIG_INVALID', `${where}: "${text}" is not a URL (e.g. http://selenium-hub:4444)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BoxflowError('CONFIG_INVALID', `${where}: "${text}" is not an http(s) URL`);
  url.hash = '';
  url.search = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

export class GridClient {
  readonly #base: URL;
  /** `Authorization` for a grid behind basic auth (credentials in its URL); sent to its WebSockets too. */
  readonly headers: Record<string, string>;
  readonly #binary: string | undefined;
  readonly sessionTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly #log: (entry: Record<string, unknown>) => void;
  readonly #late = new Set<Promise<unknown>>();

  constructor(opts: GridOptions, log: (entry: Record<string, unknown>) => void = () => {}) {
    this.#base = parseGridUrl(opts.url);
    // fetch refuses URLs with credentials: they travel as a header instead.
    const user = decodeURIComponent(this.#base.username);
    this.headers = user ? { authorization: `Basic ${Buffer.from(`${user}:${decodeURIComponent(this.#base.password)}`).toString('base64')}` } : {};
    this.#base.username = '';
    this.#base.password = '';
    this.#binary = opts.chromiumBinary;
    this.sessionTimeoutMs = opts.sessionTimeoutMs ?? kDefaultSessionTimeoutMs;
    this.heartbeatMs = opts.heartbeatMs ?? kDefaultHeartbeatMs;
    this.#log = log;
  }

  /** The grid's URL as logs and messages show it (no credentials). */
  get where(): string {
    return this.#base.href.replace(/\/$/, '');
  }

  #url(path: string): URL {
    return new URL(path, this.#base);
  }

  /** The W3C new-session body: Chrome with the flags of a local box (no DevTools pipe: the grid's driver owns DevTools). */
  capabilities(resolution: Resolution, name: string): Record<string, unknown> {
    const args = [...kChromiumFlags.filter((f) => f !== '--remote-debugging-pipe'), `--window-size=${resolution.width},${resolution.height}`];
    return {
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          // serve's heartbeat is a WebDriver command: it must never answer (dismiss) a dialog the flow looks at.
          unhandledPromptBehavior: 'ignore',
          'se:name': name,
          'goog:chromeOptions': {
            ...(this.#binary ? { binary: this.#binary } : {}),
            args,
            // As a local box's Chromium: no navigator.webdriver, popups blocked as a user's browser blocks them.
            excludeSwitches: ['enable-automation', 'disable-popup-blocking'],
          },
        },
      },
    };
  }

  async #request(method: string, path: string, body: unknown, signal: AbortSignal): Promise<WireAnswer> {
    const res = await fetch(this.#url(path), { method, signal, headers: { ...this.headers, ...(body === undefined ? {} : kJson) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    let value: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(text) as { value?: unknown };
      value = parsed && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>) : undefined;
    } catch {
      value = { message: text.slice(0, 300) };
    }
    return { status: res.status, value };
  }

  /**
   * Starts a session, or GRID_UNAVAILABLE with the grid's reason: unreachable, refused ("session not
   * created"), or no free slot within sessionTimeoutMs. A grid queues a request it cannot serve yet
   * and keeps it after the client gave up, so that request goes on in the background, and a session it
   * yields later is deleted at once: no slot is held for nobody.
   */
  async newSession(resolution: Resolution, name: string): Promise<GridSession> {
    const request = this.#request('POST', 'session', this.capabilities(resolution, name), AbortSignal.timeout(kLateSessionMs));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.sessionTimeoutMs)));
    let answer: WireAnswer | 'timeout';
    try {
      answer = await Promise.race([request, waited]);
    } catch (err) {
      throw this.#unreachable(err);
    } finally {
      clearTimeout(timer);
    }
    if (answer === 'timeout') {
      this.#endLate(request, name);
      throw new BoxflowError('GRID_UNAVAILABLE', `the grid at ${this.where} gave no session within ${this.sessionTimeoutMs / 1000} s: ${await this.#occupancy()}`);
    }
    const session = this.#session(answer);
    if (session) return session;
    const v = answer.value ?? {};
    throw new BoxflowError('GRID_UNAVAILABLE', `the grid at ${this.where} refused a session (HTTP ${answer.status}${v.error ? `, ${String(v.error)}` : ''}): ${firstLine(v.message) || 'no reason given'}`);
  }

  #session(answer: WireAnswer): GridSession | undefined {
    if (answer.status !== 200) return undefined;
    const id = answer.value?.sessionId;
    const caps = (answer.value?.capabilities ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string') return undefined;
    const cdp = caps['se:cdp'];
    const cdpViaGrid = this.#url(`session/${encodeURIComponent(id)}/se/cdp`).href.replace(/^http/, 'ws');
    if (typeof cdp !== 'string' || !/^wss?:\/\//.test(cdp)) {
      // A session serve cannot drive is of no use to anyone: end it.
      void this.deleteSession(id);
      throw new BoxflowError('GRID_UNAVAILABLE', `the grid at ${this.where} started a session without a DevTools endpoint (no se:cdp capability): its nodes must run Chrome or Chromium with CDP enabled (Selenium 4)`);
    }
    return { id, cdp, cdpViaGrid, browserVersion: String(caps.browserVersion ?? '') };
  }

  #endLate(request: Promise<WireAnswer>, name: string): void {
    const late = request
      .then((answer) => {
        const id = answer.status === 200 ? answer.value?.sessionId : undefined;
        if (typeof id !== 'string') return;
        this.#log({ level: 'info', msg: 'grid session came after its box gave up; deleting it', grid: this.where, session: id, name });
        return this.deleteSession(id);
      })
      .catch(() => {})
      .finally(() => this.#late.delete(late));
    this.#late.add(late);
  }

  /** "2 of 2 slots in use" from the grid's /status, or why it could not be read. */
  async #occupancy(): Promise<string> {
    try {
      const { value } = await this.#request('GET', 'status', undefined, AbortSignal.timeout(5_000));
      const nodes = (value?.nodes ?? []) as Array<{ availability?: string; slots?: Array<{ session?: unknown }> }>;
      const up = nodes.filter((n) => n.availability === undefined || n.availability === 'UP');
      const slots = up.flatMap((n) => n.slots ?? []);
      const busy = slots.filter((s) => s.session).length;
      if (!nodes.length) return `it has no nodes (${firstLine(value?.message) || 'its /status lists none'})`;
      return `no free slot (${busy} of ${slots.length} in use on ${up.length} node${up.length === 1 ? '' : 's'} that are up${nodes.length > up.length ? `, ${nodes.length - up.length} down` : ''}); the request was withdrawn`;
    } catch (err) {
      return `no free slot, and its /status did not answer (${firstLine((err as Error).message)})`;
    }
  }

  #unreachable(err: unknown): BoxflowError {
    return new BoxflowError('GRID_UNAVAILABLE', `cannot reach the grid at ${this.where} (${transportReason(err)})`, { cause: err });
  }

  /** Ends a session (best effort: a session that is already gone is fine). */
  async deleteSession(id: string): Promise<void> {
    try {
      await this.#request('DELETE', `session/${encodeURIComponent(id)}`, undefined, AbortSignal.timeout(kRequestTimeoutMs));
    } catch (err) {
      this.#log({ level: 'warn', msg: 'deleting a grid session failed; the grid ends it at its session timeout', grid: this.where, session: id, error: firstLine((err as Error).message) });
    }
  }

  /**
   * Whether the session still has its browser: GET /window/handles (the driver asks the browser, so
   * it notices one that went away; it never touches a dialog, and does not depend on which tab the
   * driver had current, which the box may have closed). Also counts as activity, so the grid's idle
   * timeout does not end a box that is only driven over CDP, or not at all for a while.
   */
  async probe(id: string): Promise<Liveness> {
    let answer: WireAnswer;
    try {
      answer = await this.#request('GET', `session/${encodeURIComponent(id)}/window/handles`, undefined, AbortSignal.timeout(Math.max(this.heartbeatMs, 5_000)));
    } catch (err) {
      return { alive: false, gone: false, reason: `the grid at ${this.where} did not answer (${transportReason(err)})` };
    }
    if (answer.status === 200) return { alive: true };
    const error = String(answer.value?.error ?? '');
    const message = firstLine(answer.value?.message);
    const gone = answer.status === 404 || error === 'invalid session id' || /Unable to find session|session deleted|not connected to DevTools/i.test(message);
    return { alive: false, gone, reason: message || error || `HTTP ${answer.status}` };
  }

  /** Navigates the driver's current tab (WebDriver Navigate To); refusals are errors. */
  async navigate(id: string, url: string): Promise<void> {
    const answer = await this.#request('POST', `session/${encodeURIComponent(id)}/url`, { url }, AbortSignal.timeout(kRequestTimeoutMs));
    if (answer.status !== 200) throw new Error(`navigating to ${url} failed: ${firstLine(answer.value?.message) || `HTTP ${answer.status}`}`);
  }

  /** Waits for requests that went on in the background (late sessions being deleted). */
  async close(): Promise<void> {
    await Promise.race([Promise.allSettled([...this.#late]), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }
}
