// ws://HOST:PORT/cdp/<boxId>?exp&sig → the box's current Chromium browser endpoint.
// The signature and expiry are checked before the upgrade is accepted; frames are piped as is.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { BoxflowError } from '../errors.js';
import type { BoxEntry } from './boxEntry.js';
import { refuseUpgrade as refuse, verifyPresigned } from './secret.js';

const kMaxPayload = 256 * 1024 * 1024; // CDP screenshots of large pages are big

export interface CdpProxy {
  close(): void;
}

export function attachCdpProxy(server: Server, deps: { secret: string; lookup: (boxId: string) => BoxEntry | undefined; log: (entry: Record<string, unknown>) => void }): CdpProxy {
  const wss = new WebSocketServer({ noServer: true, maxPayload: kMaxPayload, perMessageDeflate: false });
  const upstreams = new Set<WebSocket>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    let entry: BoxEntry;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const m = /^\/cdp\/([^/]+)$/.exec(url.pathname);
      if (!m) throw new BoxflowError('NOT_FOUND', `no WebSocket endpoint at ${url.pathname}`);
      verifyPresigned(deps.secret, url.pathname, url.searchParams);
      const found = deps.lookup(decodeURIComponent(m[1]!));
      if (!found) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
      if (found.record.status !== 'running') throw new BoxflowError('BOX_NOT_RUNNING', `the box is ${found.record.status}`);
      entry = found;
    } catch (err) {
      refuse(socket, err);
      return;
    }
    entry.linux
      .wsEndpoint()
      .then((endpoint) => {
        const upstream = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: kMaxPayload });
        upstreams.add(upstream);
        upstream.once('error', (err) => {
          upstreams.delete(upstream);
          refuse(socket, new BoxflowError('BROWSER_ERROR', `cannot reach the box's browser: ${err.message}`));
        });
        upstream.once('open', () => {
          upstream.removeAllListeners('error');
          wss.handleUpgrade(req, socket, head, (client) => pipe(client, upstream, entry, () => upstreams.delete(upstream)));
        });
      })
      .catch((err) => refuse(socket, err));
  };
  server.on('upgrade', onUpgrade);

  function pipe(client: WebSocket, upstream: WebSocket, entry: BoxEntry, done: () => void): void {
    const closeBoth = () => {
      entry.onBrowserGone.delete(closeBoth);
      done();
      if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING) client.close(1001, 'browser closed');
      upstream.terminate();
    };
    entry.onBrowserGone.add(closeBoth);
    client.on('message', (data, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    });
    upstream.on('message', (data, isBinary) => {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    client.on('close', () => {
      entry.onBrowserGone.delete(closeBoth);
      done();
      upstream.close();
    });
    upstream.on('close', closeBoth);
    client.on('error', () => client.terminate());
    upstream.on('error', () => upstream.terminate());
    deps.log({ level: 'info', msg: 'cdp connected', boxId: entry.record.id, tenant: entry.tenant });
  }

  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      for (const ws of upstreams) ws.terminate();
      wss.close();
    },
  };
}

