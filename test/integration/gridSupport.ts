// A real Selenium Grid 4 on loopback for the grid tests and `npm run bench -- grid`: Selenium Server
// in standalone mode (one process: router, distributor, and a node with Debian's chromedriver), from
// the jar that scripts/setup.mjs fetches. Nothing here is a test double.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../support/waitFor.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const onPath = (bin: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));

function findJar(): string | undefined {
  if (process.env.BOXFLOW_SELENIUM_JAR && existsSync(process.env.BOXFLOW_SELENIUM_JAR)) return process.env.BOXFLOW_SELENIUM_JAR;
  for (const dir of [join(repo, 'node_modules', '.cache', 'boxflow'), join(repo, 'node_modules', '@nightwatch', 'selenium-server', 'lib')]) {
    const jar = existsSync(dir) ? readdirSync(dir).find((f) => /^selenium-server-4\.[\d.]+\.jar$/.test(f)) : undefined;
    if (jar) return join(dir, jar);
  }
  return undefined;
}

let jarPath: string | undefined;

/** Why the grid tests cannot run here (no Java, no chromedriver, no jar), else undefined. */
export function gridUnavailable(): string | undefined {
  if (!onPath('java')) return 'no java on PATH (Debian: apt-get install openjdk-17-jre-headless; npm test installs it as root)';
  if (!onPath('chromedriver')) return 'no chromedriver on PATH (Debian: apt-get install chromium-driver; npm test installs it as root)';
  jarPath ??= findJar();
  if (!jarPath) {
    // The set-up fetches it when missing (npm pack of @nightwatch/selenium-server).
    spawnSync(process.execPath, [join(repo, 'scripts', 'setup.mjs'), '--grid'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
    jarPath = findJar();
  }
  if (!jarPath) return 'no Selenium Server jar (node scripts/setup.mjs --grid fetches it from the npm registry)';
  return undefined;
}

export interface LocalGrid {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The grid's process group (java, chromedriver, and the Chromiums it starts). */
  pgid: number;
  /** Sessions the grid holds, from its /status. */
  sessions(): Promise<Array<{ id: string; pid?: number }>>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Starts Selenium Server standalone on a free loopback port with `maxSessions` Chrome slots; resolves once it is ready. */
export async function startGrid(opts: { maxSessions?: number; sessionTimeoutS?: number; basicAuth?: { username: string; password: string } } = {}): Promise<LocalGrid> {
  const why = gridUnavailable();
  if (why) throw new Error(why);
  const port = await freePort();
  // Its own TMPDIR: chromedriver's profiles (and a killed Chromium's leftovers) go there and are removed with it.
  const tmp = mkdtempSync(join(tmpdir(), 'boxflow-grid-'));
  const args = ['-Xmx512m', `-Djava.io.tmpdir=${tmp}`, '-jar', jarPath!, 'standalone', '--host', '127.0.0.1', '--port', String(port), '--selenium-manager', 'false', '--detect-drivers', 'true', '--max-sessions', String(opts.maxSessions ?? 2), '--session-timeout', String(opts.sessionTimeoutS ?? 300), ...(opts.basicAuth ? ['--username', opts.basicAuth.username, '--password', opts.basicAuth.password] : [])];
  const child: ChildProcess = spawn('java', args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
  let tail = '';
  child.stderr!.on('data', (c: Buffer) => (tail = (tail + c.toString('utf8')).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const headers: Record<string, string> = opts.basicAuth ? { authorization: `Basic ${Buffer.from(`${opts.basicAuth.username}:${opts.basicAuth.password}`).toString('base64')}` } : {};
  const pgid = child.pid!;
  const kill = () => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = async () => (await fetch(`${url}/status`, { headers }).then((r) => r.json() as Promise<{ value?: { ready?: boolean } }>)).value?.ready === true;
  const started = await waitFor(async () => (child.exitCode !== null ? 'exited' : (await ready()) && 'ready'), { what: 'Selenium Server to get ready', timeoutMs: 90_000, intervalMs: 250 }).catch((err: Error) => {
    kill();
    throw new Error(`${err.message}: ${tail}`);
  });
  if (started === 'exited') throw new Error(`Selenium Server exited (${child.exitCode}): ${tail}`);
  return {
    url,
    pgid,
    async sessions() {
      const body = (await (await fetch(`${url}/status`, { headers })).json()) as { value: { nodes: Array<{ slots: Array<{ session: { sessionId: string; capabilities?: Record<string, unknown> } | null }> }> } };
      return body.value.nodes.flatMap((n) => n.slots).flatMap((s) => (s.session ? [{ id: s.session.sessionId, pid: s.session.capabilities?.['goog:processID'] as number | undefined }] : []));
    },
    async close() {
      kill();
      await exited;
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
