// Files of one folder over HTTP, with @fastify/static (Range, conditional requests, content types).
// A request reaches only what is inside the folder: @fastify/static refuses `..` and non-canonical
// paths itself; a symbolic link is followed only when what it points at is inside the folder too
// (a link in a report or an output folder must not hand out the rest of the disk).
import { realpath } from 'node:fs/promises';
import { relative, resolve, isAbsolute } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BoxflowError } from '../errors.js';

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
  await app.register(fastifyStatic, {
    root,
    prefix: opts.prefix,
    // Two registrations on one app: only the first may add reply.sendFile.
    decorateReply: false,
    ...(opts.allow ? { allowedPath: (path: string) => opts.allow!(path) } : {}),
    async onFile(path: string) {
      // Both sides resolved: a root that is itself a link (macOS's /tmp) is its target.
      const [realRoot, real] = await Promise.all([realpath(root), realpath(path)]);
      if (!isInside(realRoot, real)) throw new BoxflowError('FORBIDDEN', 'the path leads outside the folder served');
    },
    setHeaders(reply: FastifyReply) {
      for (const [k, v] of Object.entries(headers)) void reply.header(k, v);
    },
  });
}
