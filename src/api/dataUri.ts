// Screenshots come back as `data:` URIs (outputFormat base64): the one reader for them.
import { BoxflowError } from '../errors.js';

/** The bytes and media type of a `data:` URI, base64 or percent-encoded (RFC 2397). */
export function decodeDataUri(uri: string): { mime: string; bytes: Buffer } {
  const m = /^data:([^;,]*)((?:;[^;,]*)*),/s.exec(uri);
  if (!m) throw new BoxflowError('INVALID_ARGUMENT', 'not a data: URI');
  const payload = uri.slice(m[0].length);
  const base64 = m[2]!.split(';').includes('base64');
  return { mime: m[1] || 'text/plain', bytes: base64 ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8') };
}
