// An uploaded install file: one APK, or a ZIP holding split APKs (installed together as one
// session). The manifest (package name, activities) is read from the base APK on the server.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import ApkReader from '@devicefarmer/adbkit-apkreader';
import yauzl from 'yauzl';
import { BoxflowError } from '../../../errors.js';

export interface Activity {
  name: string;
  className: string;
  packageName: string;
  isExported: boolean;
  isMain: boolean;
  isLauncher: boolean;
}

export interface ApkSet {
  apks: Array<{ name: string; size: number; open(): Readable }>;
  manifest: { packageName: string; activities: Activity[] };
  close(): Promise<void>;
}

interface ManifestActivity {
  name: string;
  exported?: boolean;
  intentFilters?: Array<{ actions?: Array<{ name: string }>; categories?: Array<{ name: string }> }>;
}
interface Manifest {
  package: string;
  split?: string;
  application?: { activities?: ManifestActivity[]; activityAliases?: ManifestActivity[] };
}

async function manifestOf(file: string): Promise<Manifest> {
  try {
    return (await (await ApkReader.open(file)).readManifest()) as Manifest;
  } catch (err) {
    // Never the server's temporary path in a message.
    const why = String((err as Error)?.message ?? err).split(file).join(basename(file)).split('\n')[0];
    throw new BoxflowError('INVALID_REQUEST', `/apk: ${basename(file)} is not a readable APK: ${why}`);
  }
}

function activitiesOf(m: Manifest): Activity[] {
  const pkg = m.package;
  return [...(m.application?.activities ?? []), ...(m.application?.activityAliases ?? [])].map((a) => {
    const className = a.name.startsWith('.') ? pkg + a.name : a.name.includes('.') ? a.name : `${pkg}.${a.name}`;
    const filters = a.intentFilters ?? [];
    const isMain = filters.some((f) => f.actions?.some((x) => x.name === 'android.intent.action.MAIN'));
    const isLauncher = filters.some((f) => f.actions?.some((x) => x.name === 'android.intent.action.MAIN') && f.categories?.some((c) => c.name === 'android.intent.category.LAUNCHER'));
    // Before Android 12 an activity with an intent filter is exported unless it says otherwise.
    return { name: a.name, className, packageName: pkg, isExported: a.exported ?? filters.length > 0, isMain, isLauncher };
  });
}

function openZip(file: string): Promise<yauzl.ZipFile | undefined> {
  return new Promise((resolve) => yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => resolve(err ? undefined : zip)));
}

function entries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.once('end', () => resolve(out));
    zip.once('error', reject);
    zip.readEntry();
  });
}

const entryStream = (zip: yauzl.ZipFile, e: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) => zip.openReadStream(e, (err, s) => (err ? reject(err) : resolve(s))));

/** Reads an uploaded file; the APKs of a ZIP are extracted into a fresh directory in `into` (default $TMPDIR). */
export async function readApk(file: string, into: string = tmpdir()): Promise<ApkSet> {
  const zip = await openZip(file);
  if (!zip) throw new BoxflowError('INVALID_REQUEST', '/apk is neither an APK nor a ZIP of APKs');
  let list: yauzl.Entry[];
  try {
    list = await entries(zip);
  } catch (err) {
    zip.close();
    throw new BoxflowError('INVALID_REQUEST', `/apk is a broken ZIP: ${String((err as Error)?.message ?? err).split(file).join('upload')}`);
  }
  if (list.some((e) => e.fileName === 'AndroidManifest.xml')) {
    zip.close();
    const m = await manifestOf(file);
    const size = (await stat(file)).size;
    return { apks: [{ name: 'base.apk', size, open: () => createReadStream(file) }], manifest: { packageName: m.package, activities: activitiesOf(m) }, close: async () => {} };
  }
  const apks = list.filter((e) => /\.apk$/i.test(e.fileName) && !e.fileName.endsWith('/') && !basename(e.fileName).startsWith('.'));
  if (!apks.length) {
    zip.close();
    throw new BoxflowError('INVALID_REQUEST', '/apk: the ZIP holds no .apk file');
  }
  const dir = await mkdtemp(join(into, 'boxflow-apks-'));
  const close = () => rm(dir, { recursive: true, force: true });
  try {
    const out: ApkSet['apks'] = [];
    let base: Manifest | undefined;
    const names = new Set<string>();
    for (const e of apks) {
      const name = basename(e.fileName).replace(/[^\w.-]/g, '_');
      if (names.has(name)) throw new BoxflowError('INVALID_REQUEST', `/apk: the ZIP holds two APKs named ${name}`);
      names.add(name);
      const path = join(dir, name);
      await pipeline(await entryStream(zip, e), createWriteStream(path));
      const m = await manifestOf(path);
      if (!m.split) base ??= m;
      out.push({ name, size: (await stat(path)).size, open: () => createReadStream(path) });
    }
    if (!base) throw new BoxflowError('INVALID_REQUEST', '/apk: the ZIP holds only split APKs, no base APK');
    return { apks: out, manifest: { packageName: base.package, activities: activitiesOf(base) }, close };
  } catch (err) {
    await close();
    throw err;
  } finally {
    zip.close();
  }
}
