// POST /boxes/{boxId}/storage/presigned-url (docs/api.md): a new pre-signed URL for a stored
// object of this box, `{storageKey, expiresIn?}` (default 30m, at most 6h) → the URL as a JSON string.
// The objects are the box's stored screenshots (`boxes/<box>/actions/<actionId>/<phase>.png`) and
// recordings (`boxes/<box>/recordings/…`), kept in the object store (src/server/http/storage.ts) and served
// only through signed, expiring URLs. A key is this box's only when it starts with `boxes/<this box>/`:
// any other key (another box's, whoever's tenant it is) is 403 FORBIDDEN without looking whether it
// exists, so the answer tells nothing of other boxes; this box's key that is not stored (never was, or
// swept after its last URL expired) is 404 NOT_FOUND. The box itself is the caller's (another tenant's
// box is BOX_NOT_FOUND before anything). Issuing a URL keeps the object until that URL expires.
import { bodyOf } from '../requestChecks.js';
import { BoxflowError } from '../../../errors.js';
import { parseDuration } from '../../../api/duration.js';
import { endpoints, type PresignedUrlBody } from '../../../api/schemas.js';
import { preview } from '../../../api/validate.js';
import type { BoxCall, RouteAnswer as Answer, RouteCall } from './boxRoute.js';
import type { ObjectStore } from '../storage.js';

interface StorageUrlDeps<Call extends RouteCall> {
  boxCall: BoxCall<Call>;
  store: ObjectStore;
}

export function createStorageUrlHandlers<Call extends RouteCall>(deps: StorageUrlDeps<Call>) {
  return {
    createPresignedUrl: (call: Call) =>
      deps.boxCall('createPresignedUrl', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.createPresignedUrl.body, call.body) as PresignedUrlBody;
        const id = entry.record.id;
        const prefix = `boxes/${id}/`;
        if (!body.storageKey.startsWith(prefix)) {
          throw new BoxflowError('FORBIDDEN', `/storageKey ${preview(body.storageKey)} is not an object of box ${id}: its keys start with ${prefix} (the uri of a screenshot taken with outputFormat storageKey, a recording's storageKey)`);
        }
        const expiresAt = Date.now() + parseDuration(body.expiresIn ?? '30m', '/expiresIn', '6h');
        if (!(await deps.store.keep(body.storageKey, expiresAt))) throw new BoxflowError('NOT_FOUND', `box ${id} has no stored object ${preview(body.storageKey)}: it was never stored, or was removed after its last URL expired`);
        return { status: 200, body: deps.store.url(call.origin, body.storageKey, expiresAt), jsonString: true };
      }),
  };
}
