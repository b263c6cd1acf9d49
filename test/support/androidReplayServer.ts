// TEST DOUBLE: a loopback Box API server for one Android box, replaying real captured device
// output (test/fixtures/android/: uiautomator dumps and `pm list packages -f`). There is no
// Android device here; the real path (a remote service, or an ADB backend) stays in the code.
// It records every request so tests can check what the runner sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

export const kFixtures = join(import.meta.dirname, '../fixtures/android');

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Buffer;
  contentType: string;
}

/** `pm list packages -f` lines → AndroidPackage records (split each line on its LAST `=`). */
export function packagesFromPmList(text: string) {
  return text
    .split('\n')
    .filter((l) => l.startsWith('package:'))
    .map((line) => {
      const eq = line.lastIndexOf('=');
      const apkPath = line.slice('package:'.length, eq);
      const packageName = line.slice(eq + 1).trim();
      return { name: packageName, packageName, apkPath, version: 'unknown', pkgType: apkPath.startsWith('/data/') ? 'thirdParty' : 'system', isRunning: false };
    });
}

export async function startAndroidReplay(opts: { layout: string; boxId?: string }): Promise<{ baseUrl: string; boxId: string; requests: Recorded[]; setLayout(file: string): void; close(): Promise<void> }> {
  const boxId = opts.boxId ?? 'android-replay-1';
  const packages = packagesFromPmList(readFileSync(join(kFixtures, 'pm-list-packages-f_rockchip-tvbox_152pkgs.txt'), 'utf8'));
  let layout = readFileSync(join(kFixtures, opts.layout), 'utf8');
  let scale = 1;
  // A real Chromium capture (test/fixtures/visual) stands in for the device's screen.
  const screen = readFileSync(join(kFixtures, '../visual/base.png'));
  let n = 0;
  const requests: Recorded[] = [];
  const now = new Date().toISOString();
  const box = { id: boxId, type: 'android', status: 'running', createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 4, memory: 4096, storage: 32, envs: {}, labels: {}, os: { version: '13' }, deviceType: 'physical' } };
  const read = (req: IncomingMessage) => new Promise<Buffer>((r) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => r(Buffer.concat(parts)));
  });
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x');
    const body = await read(req);
    const path = url.pathname.replace(/^\/api\/v1/, '');
    requests.push({ method: req.method!, path, query: url.searchParams, body, contentType: String(req.headers['content-type'] ?? '') });
    const json = (status: number, value?: unknown) => {
      res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
      res.end(value === undefined ? undefined : JSON.stringify(value));
    };
    const b = `/boxes/${boxId}`;
    const action = () => ({ actionId: `act_replay_${++n}`, message: 'ok' });
    if (path === '/boxes' && req.method === 'GET') return json(200, { data: [box], page: 1, pageSize: 20, total: 1 });
    if (path === b && req.method === 'GET') return json(200, box);
    if (path === `${b}/actions/settings`) {
      if (req.method === 'PUT') scale = (JSON.parse(body.toString()) as { scale: number }).scale;
      if (req.method === 'DELETE') scale = 1;
      return json(200, { scale });
    }
    if (path === `${b}/actions/screen-layout`) return json(200, { content: layout });
    if (path === `${b}/actions/drag`) {
      const d = JSON.parse(body.toString()) as { start: unknown; end: unknown; duration?: string };
      return json(200, { ...action(), actual: { start: d.start, end: d.end, duration: d.duration ?? '500ms' } });
    }
    if (path === `${b}/actions/press-key`) return json(200, action());
    if (path === `${b}/actions/type`) {
      // Like a service without POST /actions/screenshot: the after-phase is the only capture.
      const t = JSON.parse(body.toString()) as { options?: { screenshot?: { phases?: string[] } } };
      const after = t.options?.screenshot?.phases?.includes('after');
      return json(200, { ...action(), ...(after ? { screenshot: { after: { uri: `data:image/png;base64,${screen.toString('base64')}` } } } : {}) });
    }
    if (path === `${b}/android/packages` && req.method === 'GET') {
      const types = (url.searchParams.get('pkgType') ?? 'thirdParty').split(',');
      return json(200, { data: packages.filter((p) => types.includes(p.pkgType)) });
    }
    if (path.startsWith(`${b}/android/packages/`) && req.method === 'GET' && !path.endsWith('/close-all')) {
      const name = decodeURIComponent(path.slice(`${b}/android/packages/`.length));
      const pkg = packages.find((p) => p.packageName === name);
      return pkg ? json(200, pkg) : json(404, { code: 'NOT_FOUND', message: `package ${name} is not installed` });
    }
    if (path === `${b}/android/packages` && req.method === 'POST') {
      return json(200, { packageName: 'com.example.demo', apkPath: '/data/app/com.example.demo/base.apk', pkgType: 'thirdParty', activities: [{ name: 'Main', className: 'com.example.demo.Main', packageName: 'com.example.demo', isExported: true, isMain: true }] });
    }
    if (path === `${b}/android/apps`) return json(200, { data: [{ packageName: 'com.google.android.youtube', activityName: 'YouTube', activityClassName: 'com.google.android.youtube.HomeActivity' }] });
    if (path === `${b}/android/packages/close-all` && req.method === 'POST') return json(204);
    if (path.startsWith(`${b}/media/albums/`) && req.method === 'DELETE') return json(204);
    if (path === `${b}/browser/close`) return json(400, { code: 'UNSUPPORTED_BOX_TYPE', message: 'browser endpoints need a linux box; this box is android' });
    return json(404, { code: 'NOT_FOUND', message: `replay server has no ${req.method} ${path}` });
  };
  const server: Server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    boxId,
    requests,
    setLayout: (file) => {
      layout = readFileSync(join(kFixtures, file), 'utf8');
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
