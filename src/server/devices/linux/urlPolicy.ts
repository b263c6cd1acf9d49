// Which URLs POST /browser/tabs opens. A file: URL must name a file inside the box's own directory
// (after symlinks). This is a second line only: a tenant also drives its browser over CDP, where no
// URL passes here, so what keeps the server's files out of reach is the box's own user (boxUser.ts).
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoxflowError } from '../../../errors.js';
import { boxPathOf } from '../../host/boxFs.js';

const kProtocols = new Set(['http:', 'https:', 'file:', 'data:', 'about:']);

/** Parses `text` and refuses what a box may not open; answers the URL to navigate to. */
export async function checkOpenUrl(text: string, boxDir: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BoxflowError('INVALID_URL', `/url "${text.slice(0, 200)}" is not an absolute URL (e.g. https://example.com/)`);
  }
  if (!kProtocols.has(url.protocol)) throw new BoxflowError('INVALID_URL', `/url: the scheme "${url.protocol}" is not supported; use http, https, file, data or about`);
  if (url.protocol !== 'file:') return url.href;
  const refuse = () => new BoxflowError('FORBIDDEN', "/url: a file: URL must point inside the box's own directory (file:///<box dir>/…); open http(s) URLs for anything else");
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    throw refuse();
  }
  const root = await realpath(boxDir);
  const real = await realpath(path).catch(async () => join(await realpath(dirname(path)).catch(() => dirname(path)), basename(path)));
  if (boxPathOf(root, real) === undefined) throw refuse();
  return url.href;
}
