// GBOX's recording endpoints (docs/api.md) on boxflow serve:
//   POST /boxes/{boxId}/actions/recording/start  → 204; a recording already running is thrown away
//                                                   ("only one recording can be active at a time")
//   POST /boxes/{boxId}/actions/recording/stop   → {presignedUrl, storageKey, contentType, durationMs, size, truncated?, limits, startedAt?}
// Linux boxes record the active page's screencast with ffmpeg (devices/linux/recording.ts), Android
// boxes with the device's screenrecord (devices/android/recording.ts). A recording ends by itself after 10 minutes and its
// file at 200 MB (kRecordingLimits; stop still answers it, `truncated` says which). The video is stored
// as a screenshot is (the object store, boxes/<id>/recordings/<rid>.<ext>) and reached only through its
// pre-signed, expiring URL. Both endpoints take the caller's box only: another tenant's is BOX_NOT_FOUND.
// Terminating the box ends its recording and throws it away.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, kRecordingLimits, type RecordingStopBody } from '../../api/schemas.js';
import { requestProblem } from '../../api/validate.js';
import type { BoxEntry } from '../boxes/boxEntry.js';
import { deviceOfBox } from '../devices/index.js';
import type { BoxRegistry } from '../boxes/boxes.js';
import type { Recorder, RecordingLimits } from '../devices/recording.js';
import type { Answer, Call } from './call.js';
import type { ObjectStore } from './storage.js';

export interface RecordingDeps {
  registry: BoxRegistry;
  store: ObjectStore;
  /** Default kRecordingLimits (tests shorten them). */
  limits?: RecordingLimits;
}

interface Running {
  id: string;
  recorder: Promise<Recorder>;
}

const running = new WeakMap<BoxEntry, Running>();

export function createRecordingHandlers(deps: RecordingDeps) {
  const limits: RecordingLimits = deps.limits ?? { maxMs: kRecordingLimits.maxDurationMs, maxBytes: kRecordingLimits.maxBytes };

  /** The caller's running box (another tenant's is BOX_NOT_FOUND, as everywhere). */
  const boxOf = (call: Call): BoxEntry => {
    const entry = deps.registry.get(call.tenant, call.params.boxId!);
    deps.registry.requireUsable(entry);
    return entry;
  };

  const discard = (r: Running) => void r.recorder.then((rec) => rec.abort(), () => {});

  return {
    startRecording: async (call: Call): Promise<Answer> => {
      const entry = boxOf(call);
      const previous = running.get(entry);
      if (previous) {
        running.delete(entry);
        discard(previous);
      }
      const rec: Running = {
        id: `rec_${randomBytes(9).toString('base64url')}`,
        // Its temporary folder names the box (boxflow-rec-<box>-…), for whoever looks at the machine.
        recorder: deviceOfBox(entry).record(limits, entry.record.id),
      };
      running.set(entry, rec);
      // Terminating the box (not a browser that closes between flows) throws the recording away.
      const onGone = () => {
        if (entry.record.status !== 'terminated') return;
        entry.onBrowserGone.delete(onGone);
        if (running.get(entry) === rec) running.delete(entry);
        discard(rec);
      };
      entry.onBrowserGone.add(onGone);
      try {
        await rec.recorder;
      } catch (err) {
        entry.onBrowserGone.delete(onGone);
        if (running.get(entry) === rec) running.delete(entry);
        throw err;
      }
      return { status: 204 };
    },

    stopRecording: async (call: Call): Promise<Answer> => {
      const entry = boxOf(call);
      const problem = requestProblem(endpoints.stopRecording.body, call.body ?? {});
      if (problem) throw problem;
      const body = (call.body ?? {}) as RecordingStopBody;
      const rec = running.get(entry);
      if (!rec) throw new BoxflowError('CONFLICT', `no recording is running on box ${entry.record.id}: POST /boxes/${entry.record.id}/actions/recording/start first`);
      running.delete(entry);
      const video = await (await rec.recorder).stop();
      try {
        const key = `boxes/${entry.record.id}/recordings/${rec.id}.${video.ext}`;
        const expiresAt = Date.now() + parseDuration(body.presignedExpiresIn ?? '30m', '/presignedExpiresIn', '6h');
        await deps.store.put(key, await readFile(video.file), expiresAt);
        return {
          status: 200,
          body: {
            presignedUrl: deps.store.url(call.origin, key, expiresAt),
            storageKey: key,
            contentType: video.contentType,
            durationMs: video.durationMs,
            size: video.size,
            ...(video.truncated ? { truncated: video.truncated } : {}),
            limits: { maxDurationMs: limits.maxMs, maxBytes: limits.maxBytes },
            // The video's 0 on the box's clock: a runner counts its chapters from it.
            ...(video.startedAt !== undefined ? { startedAt: new Date(video.startedAt).toISOString() } : {}),
          },
        };
      } finally {
        await rm(video.dir, { recursive: true, force: true });
      }
    },
  };
}

/** The content type of a stored object, from its key's extension (screenshots are PNG). */
export function storedContentType(key: string): string {
  return key.endsWith('.webm') ? 'video/webm' : key.endsWith('.mp4') ? 'video/mp4' : 'image/png';
}
