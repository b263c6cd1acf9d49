// The app, package and gallery endpoints of the contract (docs/api.md) on an Android box: the
// device's `apps` facet (devices/device.ts). Another kind of box refuses them as its declaration
// says, before any of this runs. Names from the path are checked against Android's rules (devices/android/names.ts)
// before any device command.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../../errors.js';
import { endpoints, type EndpointName, type ListPackagesQuery } from '../../../api/schemas.js';
import type { AndroidBox } from '../../devices/android/androidBox.js';
import { activityClass, checkMediaName, checkPackageName } from '../../devices/android/names.js';
import type { BoxEntry } from '../../boxes/boxEntry.js';
import type { Answer, Call } from '../call.js';
import { checkedParts, download, kMultipart, spool, type MultipartBody } from '../multipart.js';
import { bodyOf } from '../requestChecks.js';

export interface AppHandlerDeps {
  /** boxCall with the box's `apps` facet. */
  onApps: (name: EndpointName, call: Call, work: (apps: AndroidBox, entry: BoxEntry) => Promise<Answer>) => Promise<Answer>;
  /** Let installs download from this machine and its private networks (publicUrl.ts). */
  allowInnerDownloads: boolean;
}

/** The `{packageName}` of the path, checked: 400 before any device command. */
const packageParam = (call: Call) => checkPackageName(call.params.packageName, 'packageName');

/** An open/restart request: the package and the body, its activityName checked before any device command. */
function appCall(call: Call, schema: TSchema | undefined): { packageName: string; body: { activityName?: string; extras?: Record<string, string> } } {
  const packageName = packageParam(call);
  const body = bodyOf(schema, call.body) as { activityName?: string; extras?: Record<string, string> };
  if (body.activityName !== undefined) activityClass(packageName, body.activityName);
  return { packageName, body };
}

export function createAppHandlers({ onApps, allowInnerDownloads }: AppHandlerDeps) {
  const done = { status: 204 } as const;
  return {
    listPackages: (call: Call) =>
      onApps('listPackages', call, async (apps) => {
        const query = call.query as ListPackagesQuery;
        return { status: 200, body: { data: await apps.listPackages(query.pkgType?.length ? query.pkgType : ['thirdParty'], query.runningFilter) } };
      }),
    getPackage: (call: Call) => onApps('getPackage', call, async (apps) => ({ status: 200, body: await apps.getPackage(packageParam(call)) })),
    listApps: (call: Call) => onApps('listApps', call, async (apps) => ({ status: 200, body: { data: await apps.listApps() } })),
    closeAllApps: (call: Call) => onApps('closeAllApps', call, async (apps) => (await apps.closeAll(), done)),
    installPackage: (call: Call) =>
      onApps('installPackage', call, async (apps) => {
        const parts = (call.body as Partial<MultipartBody> | undefined)?.[kMultipart];
        if (!parts) throw new BoxflowError('INVALID_REQUEST', 'send the install as multipart/form-data with an `apk` part (a file, or an http(s) URL as text)');
        // In the box's scratch dir: removed when the box is released, and reaped after a crash of the server.
        const dir = await apps.installDir();
        try {
          const file = join(dir, 'upload');
          let source: 'file' | 'url' | undefined;
          let open = false;
          for await (const part of checkedParts(parts)) {
            if (part.fieldname === 'apk' && source) {
              if (part.type === 'file') part.file.resume();
              throw new BoxflowError('INVALID_REQUEST', '/apk is given twice; send one `apk` part: an APK or ZIP file, or an http(s) URL as text');
            }
            if (part.fieldname === 'open' && part.type === 'field') open = String(part.value) === 'true';
            else if (part.fieldname === 'apk' && part.type === 'file') {
              await spool(part.file, file, () => part.file.truncated === true);
              source = 'file';
            } else if (part.fieldname === 'apk' && part.type === 'field') {
              await download(String(part.value), file, allowInnerDownloads);
              source = 'url';
            } else if (part.type === 'file') part.file.resume();
          }
          if (!source) throw new BoxflowError('INVALID_REQUEST', '/apk is required: an APK or ZIP file part, or an http(s) URL as a text part');
          return { status: 200, body: await apps.install(file, open) };
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }),
    openApp: (call: Call) =>
      onApps('openApp', call, async (apps) => {
        const { packageName, body } = appCall(call, endpoints.openApp.body);
        await apps.launch(packageName, body.activityName, body.extras);
        return done;
      }),
    restartApp: (call: Call) =>
      onApps('restartApp', call, async (apps) => {
        const { packageName, body } = appCall(call, endpoints.restartApp.body);
        await apps.closeApp(packageName);
        await apps.launch(packageName, body.activityName, body.extras);
        return done;
      }),
    closeApp: (call: Call) => onApps('closeApp', call, async (apps) => (await apps.closeApp(packageParam(call)), done)),
    clearAppData: (call: Call) => onApps('clearAppData', call, async (apps) => (await apps.clearAppData(packageParam(call)), done)),
    deleteMedia: (call: Call) => onApps('deleteMedia', call, async (apps) => (await apps.deleteMedia(checkMediaName(call.params.albumName, 'albumName'), checkMediaName(call.params.mediaName, 'mediaName')), done)),
    deleteAlbum: (call: Call) => onApps('deleteAlbum', call, async (apps) => (await apps.deleteAlbum(checkMediaName(call.params.albumName, 'albumName')), done)),
  } satisfies Partial<Record<EndpointName, (call: Call) => Promise<Answer>>>;
}
