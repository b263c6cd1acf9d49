// Fetching a URL a tenant names (an APK to install) from the server's own network position. Without
// a policy that is a server-side request forgery: the body lands on the tenant's device, where its
// shell can read it, so a tenant could read the server's loopback services, the cloud metadata
// address or the LAN. Every address is checked where the connection is made (the resolver's answer
// for a name, the literal itself otherwise), for every redirect hop, so DNS rebinding and redirects
// to an inner address are refused too.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { BoxflowError } from '../../errors.js';

/** Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, reserved. */
const kInner = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  kInner.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) {
  kInner.addSubnet(net, bits, 'ipv6');
}

/** True for an address a tenant's download must not reach. */
export function isInnerAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return kInner.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return kInner.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface PublicUrlOptions {
  /** Let addresses of this machine and its networks through (a trusted single-user server, tests). */
  allowInner?: boolean;
  signal?: AbortSignal;
  /** Default 5. */
  maxRedirects?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** GETs `url` (http or https), following redirects; answers the final 2xx response, streaming. */
export async function getPublicUrl(url: URL, opts: PublicUrlOptions = {}): Promise<IncomingMessage> {
  const maxRedirects = opts.maxRedirects ?? 5;
  let at = url;
  for (let hop = 0; ; hop++) {
    if (at.protocol !== 'http:' && at.protocol !== 'https:') throw new BoxflowError('INVALID_URL', `only http(s) URLs are downloaded, not ${at.protocol}`);
    const host = at.hostname.replace(/^\[|\]$/g, '');
    if (!opts.allowInner && isIP(host) && isInnerAddress(host)) throw refused(at);
    const res = await get(at, opts);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      if (hop >= maxRedirects) throw new BoxflowError('URL_UNREACHABLE', `cannot download ${at.origin}: more than ${maxRedirects} redirects`);
      at = new URL(location, at);
      continue;
    }
    if (!res.statusCode || res.statusCode < 200 || res.statusCode >= 300) {
      res.resume();
      throw new BoxflowError('URL_UNREACHABLE', `cannot download ${at.origin}${at.pathname}: HTTP ${res.statusCode}`);
    }
    return res;
  }
}

function refused(url: URL): BoxflowError {
  return new BoxflowError('FORBIDDEN', `${url.origin} is an address of the server's own machine or network; a box may only download from public addresses`);
}

function get(url: URL, opts: PublicUrlOptions): Promise<IncomingMessage> {
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!opts.allowInner && addresses.some((a) => isInnerAddress(a.address))) {
        return callback(Object.assign(new Error('inner address'), { code: 'EINNER' }), []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', lookup: lookup as never, ...(opts.signal ? { signal: opts.signal } : {}) }, resolve);
    req.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EINNER') reject(refused(url));
      else reject(new BoxflowError('URL_UNREACHABLE', `cannot download ${url.origin}${url.pathname}: ${err.code ?? err.message}`, { cause: err }));
    });
    req.end();
  });
}
