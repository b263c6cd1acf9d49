// Multipart request bodies (installs, fs/write, album uploads), read as @fastify/multipart yields
// them: a broken body or one over a limit is the client's mistake (4xx) in this API's terms, and a
// file part is streamed to disk, counted, never held in memory.
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoxflowError } from '../../errors.js';
import { kInstallMaxBytes } from '../../api/schemas.js';
import { getPublicUrl } from './publicUrl.js';

/** A multipart request body as @fastify/multipart's `request.parts()` yields it. */
export type MultipartPart =
  | { type: 'file'; fieldname: string; filename: string; file: Readable & { truncated?: boolean } }
  | { type: 'field'; fieldname: string; value: unknown };
export const kMultipart = Symbol('multipart');
export interface MultipartBody {
  [kMultipart]: AsyncIterable<MultipartPart>;
}

const tooLarge = () => new BoxflowError('FILE_TOO_LARGE', `/apk is over the ${kInstallMaxBytes / 2 ** 20} MB limit`);

/** What an endpoint says when its multipart body is over a limit: the file too large, too many files, too many parts. */
export interface MultipartWords {
  tooLarge: () => BoxflowError;
  files: string;
  parts: string;
}
const kInstallWords: MultipartWords = {
  tooLarge: () => tooLarge(),
  files: 'the multipart body has more than one file part; send one `apk` part: an APK or ZIP file, or an http(s) URL as text',
  parts: 'the multipart body has too many parts; send `apk` (a file, or an http(s) URL as text) and optionally `open`',
};

/**
 * What a broken multipart body becomes: the client's mistake (4xx) in this API's terms, never a
 * 502. @fastify/multipart's limits (app.ts: one file, four fields) and busboy's parse errors
 * ("Unexpected end of multipart data", "Malformed part header", ...) arrive here.
 */
export function multipartError(err: unknown, words: MultipartWords = kInstallWords): BoxflowError {
  if (BoxflowError.is(err)) return err;
  const code = (err as { code?: string })?.code;
  const text = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return words.tooLarge();
    case 'FST_FILES_LIMIT':
      return new BoxflowError('INVALID_REQUEST', words.files);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new BoxflowError('INVALID_REQUEST', words.parts);
    case 'FST_PROTO_VIOLATION':
      return new BoxflowError('INVALID_REQUEST', 'a multipart part is named like an object prototype property (__proto__, constructor, ...)');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new BoxflowError('INVALID_REQUEST', 'a multipart text part declared as application/json is not valid JSON');
    case 'FST_MP_PREMATURE_CLOSE':
      return new BoxflowError('INVALID_REQUEST', 'the request ended before its multipart body did');
    default:
      if (/Unexpected end/i.test(text)) return new BoxflowError('INVALID_REQUEST', `the multipart body is malformed: it ends before its closing boundary (${text})`);
      return new BoxflowError('INVALID_REQUEST', `the multipart body is malformed: ${text}`);
  }
}

/**
 * The parts of a multipart body; a parse error or limit is a 4xx (`toError`, default
 * multipartError, which an endpoint wraps to name its own parts), not a server fault.
 */
export async function* checkedParts(parts: AsyncIterable<MultipartPart>, toError: (err: unknown) => BoxflowError = multipartError): AsyncGenerator<MultipartPart> {
  const it = parts[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<MultipartPart>;
    try {
      next = await it.next();
    } catch (err) {
      throw toError(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

/**
 * Streams to disk, counting: never more than the limit, never the whole file in memory. An error
 * of the incoming stream (a body cut short, a malformed part) is the client's: multipartError.
 */
export async function spool(from: Readable, to: string, truncated: () => boolean = () => false): Promise<void> {
  let total = 0;
  let incoming: unknown;
  from.once('error', (err) => (incoming ??= err));
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      done(total > kInstallMaxBytes ? tooLarge() : null, chunk);
    },
  });
  try {
    await pipeline(from, count, createWriteStream(to));
  } catch (err) {
    // @fastify/multipart's own fileSize limit (the same 512 MB) ends the part with this code.
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (BoxflowError.is(err)) throw err;
    // The part may have failed before this listened (busboy destroys it with the parse error).
    incoming ??= from.errored ?? undefined;
    if (incoming !== undefined && incoming !== null) throw multipartError(incoming);
    throw err;
  }
  if (truncated()) throw tooLarge();
}

export async function download(text: string, to: string, allowInner: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BoxflowError('INVALID_URL', `/apk "${text.slice(0, 200)}" is neither a file nor an absolute http(s) URL`);
  }
  const res = await getPublicUrl(url, { allowInner, signal: AbortSignal.timeout(10 * 60_000) });
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > kInstallMaxBytes) {
    res.destroy();
    throw tooLarge();
  }
  await spool(res, to);
}
