// Files of one folder over HTTP, with @fastify/static (Range, conditional requests, content types).
// A request reaches only what is inside the folder: @fastify/static refuses `..` and non-canonical
// paths itself; a symbolic link is followed only when what it points at is inside the folder too
// (a link in a report or an output folder must not hand out the rest of the disk).
import { realpathSync } from 'node:fs';
import { relative, resolve, isAbsolute } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export interface FilesOptions {
  /** The folder served. */
  root: string;
  /** Where it appears in the URL space, ending in `/`. */
  prefix: string;
  /** Which paths (relative to the prefix, with a leading `/`) are served; others are a 404. Default: all. */
  allow?: (path: string) => boolean;
  /** Headers set on every file sent. */
  headers?: Record<string, string>;
}

/** True when `path` is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export async function serveFiles(app: FastifyInstance, opts: FilesOptions): Promise<void> {
  const root = resolve(opts.root);
  const headers = opts.headers ?? {};
  // Both sides resolved: a root that is itself a link (macOS's /tmp) is its target.
  const realRoot = realpathSync(root);
  /** What `path` leads to is inside the folder; one that is not there is @fastify/static's 404. */
  const leadsInside = (path: string) => {
    try {
      return isInside(realRoot, realpathSync(resolve(root, `.${path}`)));
    } catch {
      return true;
    }
  };
  await app.register(fastifyStatic, {
    root,
    prefix: opts.prefix,
    // Two registrations on one app: only the first may add reply.sendFile.
    decorateReply: false,
    // Checked as the request comes, on its path as @fastify/static will open it (a refusal is a 404).
    allowedPath: (path: string) => (opts.allow?.(path) ?? true) && leadsInside(path),
    setHeaders(res: { setHeader(name: string, value: string): unknown }) {
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    },
  });
}
