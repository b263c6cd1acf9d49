// fs/write's multipart body, read into its request (devices/fsEntries.ts).
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoxflowError } from '../../../errors.js';
import { kFsLimits } from '../../../api/schemas.js';
import { checkedParts, multipartError, type MultipartPart } from '../multipart.js';
import type { WriteRequest } from '../../devices/fsEntries.js';

export type { WriteRequest } from '../../devices/fsEntries.js';


// ---------------------------------------------------------------- fs/write's multipart body


const tooLargeToWrite = (text: boolean) =>
  new BoxflowError('FILE_TOO_LARGE', `/content is over the ${(text ? kFsLimits.writeTextBytes : kFsLimits.writeFileBytes) / 2 ** 20} MiB limit${text ? ' of a text part; send it as a file part (up to 512 MiB)' : ''}`);

/** A broken multipart body in this API's terms (4xx), never a server fault: this endpoint's limits, else the shared reading (multipartError). */
function partsError(err: unknown): BoxflowError {
  return multipartError(err, {
    tooLarge: () => tooLargeToWrite(false),
    files: 'the multipart body has more than one file part; send one `content`',
    parts: 'the multipart body has too many parts; send `path`, `content` and optionally `workingDir`',
  });
}

/**
 * Reads fs/write's parts in any order: `path` and `workingDir` as text, `content` as a text part or
 * a file part (spooled into `spoolDir()`, counting, never more than the limit on disk).
 */
export async function readWriteParts(parts: AsyncIterable<MultipartPart>, spoolDir: () => Promise<string>): Promise<WriteRequest> {
  const fields: Record<string, string> = {};
  let text: Buffer | undefined;
  let file: string | undefined;
  for await (const part of checkedParts(parts, partsError)) {
    if (part.fieldname === 'content' && (text !== undefined || file !== undefined)) throw new BoxflowError('INVALID_REQUEST', 'the multipart body has `content` twice');
    if (part.type === 'file') {
      if (part.fieldname !== 'content') {
        part.file.resume();
        continue;
      }
      file = join(await spoolDir(), 'content');
      await spool(part.file, file);
    } else if (part.fieldname === 'content') {
      if ((part as { valueTruncated?: boolean }).valueTruncated) throw tooLargeToWrite(true);
      text = Buffer.from(String(part.value), 'utf8');
    } else if (part.fieldname === 'path' || part.fieldname === 'workingDir') {
      if ((part as { valueTruncated?: boolean }).valueTruncated || String(part.value).length > 4096) throw new BoxflowError('INVALID_REQUEST', `/${part.fieldname} is over 4096 characters`);
      fields[part.fieldname] = String(part.value);
    }
  }
  if (!fields.path) throw new BoxflowError('INVALID_REQUEST', '/path is required: a text part naming the file to write');
  if (text === undefined && file === undefined) throw new BoxflowError('INVALID_REQUEST', '/content is required: a text part, or a file part');
  return { path: fields.path, ...(fields.workingDir !== undefined ? { workingDir: fields.workingDir } : {}), ...(text !== undefined ? { text } : {}), ...(file !== undefined ? { file } : {}) };
}

async function spool(from: Readable & { truncated?: boolean }, to: string): Promise<void> {
  let total = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      done(total > kFsLimits.writeFileBytes ? tooLargeToWrite(false) : null, chunk);
    },
  });
  try {
    await pipeline(from, count, createWriteStream(to, { mode: 0o600 }));
  } catch (err) {
    throw partsError(err);
  }
  if (from.truncated) throw tooLargeToWrite(false);
}
