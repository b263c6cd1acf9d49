// The CDP connections of a Linux box's pages (linuxBox.ts): Playwright's CDP session per page, and
// a raw connection of its own per page (input and captures go there, a command's round trip
// without Playwright's), each made once and bounded by the box's CDP timeout.
import type { CDPSession, Page } from 'playwright-core';
import { BoxflowError } from '../../../../errors.js';
import { CdpConnection, type CdpConnectOptions } from '../../../../cdp/connection.js';
import { kMaxAnswer } from './cdpPipe.js';
import type { BrowserHandle } from './source.js';

/** `work` (a Playwright call), failing with BROWSER_TIMEOUT when the browser does not answer within `timeoutMs`. */
export function bounded<T>(what: string, work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BoxflowError('BROWSER_TIMEOUT', `the box's browser did not answer (${what}) within ${timeoutMs / 1000}s`)), timeoutMs);
  });
  work.catch(() => {}); // its late failure, after a timeout, is nobody's business
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class PageConnections {
  /** The running browser's DevTools endpoints (LinuxBox: it throws when the box has no browser). */
  readonly #devtools: () => BrowserHandle['devtools'];
  readonly #timeoutMs: number;
  readonly #sessions = new WeakMap<Page, Promise<CDPSession>>();
  readonly #raw = new WeakMap<Page, Promise<CdpConnection>>();
  readonly #targetIds = new WeakMap<Page, string>();

  constructor(opts: { devtools: () => BrowserHandle['devtools']; timeoutMs: number }) {
    this.#devtools = opts.devtools;
    this.#timeoutMs = opts.timeoutMs;
  }

  /** A page connection's bounds: a command answered within the box's CDP timeout, an answer within the pipe's frame size. */
  #options(): CdpConnectOptions {
    return { maxPayload: kMaxAnswer, timeoutMs: this.#timeoutMs, closed: () => new Error('the page closed') };
  }

  /** A new CDP connection of its own to `page`; it closes with the page. */
  async ownConnection(page: Page): Promise<CdpConnection> {
    const devtools = this.#devtools();
    const cdp = await CdpConnection.open(devtools.pageEndpoint(await this.targetId(page)), this.#options());
    page.once('close', () => cdp.close());
    return cdp;
  }

  /** Playwright's CDP session of `page`. */
  session(page: Page): Promise<CDPSession> {
    let s = this.#sessions.get(page);
    if (!s) {
      s = bounded('attach to the page', page.context().newCDPSession(page), this.#timeoutMs);
      this.#sessions.set(page, s);
      s.catch(() => this.#sessions.delete(page));
    }
    return s;
  }

  /** The raw CDP connection of `page` (a new one when the last one closed). */
  raw(page: Page): Promise<CdpConnection> {
    let r = this.#raw.get(page);
    if (!r) {
      const devtools = this.#devtools();
      r = this.targetId(page).then((id) => CdpConnection.open(devtools.pageEndpoint(id), this.#options()));
      this.#raw.set(page, r);
      r.then(
        (cdp) => page.once('close', () => cdp.close()),
        () => this.#raw.delete(page),
      );
    }
    return r.then((cdp) => {
      if (cdp.open) return cdp;
      this.#raw.delete(page);
      return this.raw(page);
    });
  }

  /** A page's CDP target id. */
  async targetId(page: Page): Promise<string> {
    let id = this.#targetIds.get(page);
    if (!id) {
      const s = await this.session(page);
      id = ((await bounded('Target.getTargetInfo', s.send('Target.getTargetInfo'), this.#timeoutMs)) as { targetInfo: { targetId: string } }).targetInfo.targetId;
      this.#targetIds.set(page, id);
    }
    return id;
  }
}
