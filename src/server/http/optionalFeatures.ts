// What this install of `boxflow serve` cannot do because an optional package is missing: said once
// at start, instead of first at a user's failing request.
import { traceReady } from './trace.js';
import { webTerminalReady } from './terminal.js';

export interface MissingFeatures {
  /** Why trace images cannot be drawn (no @napi-rs/canvas), if they cannot. */
  trace?: string;
  /** Why the web terminal cannot start (no node-pty or @xterm/xterm), if it cannot. */
  terminal?: string;
}

export async function missingFeatures(): Promise<MissingFeatures> {
  const why = (ready: () => Promise<void>) => ready().then(() => undefined, (err: unknown) => (err as Error).message);
  const [trace, terminal] = await Promise.all([why(traceReady), why(webTerminalReady)]);
  return { ...(trace ? { trace } : {}), ...(terminal ? { terminal } : {}) };
}
