// Video of flow attempts (`video: 'off' | 'on' | 'retain-on-failure'`, Playwright's names and meaning):
// the box records from the attempt's start to its end (GBOX's recording/start and /stop), the video
// goes to the artifact store (data/<sha1>.webm or .mp4), and each step is a chapter at its offset from
// the video's 0, in results.json and as a WebVTT chapters file next to the video. The video's 0 is the
// time of its first frame, which the service gives with the video (`startedAt`, boxflow serve's Linux
// boxes); without it, the moment the start's answer arrived. With
// `retain-on-failure` a passed attempt's video is not downloaded (the service's copy expires), a failed
// one's is kept, even when a retry passes. A service that does not record (404 for the route, 405,
// 501) gets one warning per run, and the run goes on without video; any other failure of the
// recording warns too, and never fails the flow.
import { BoxApiError, type BoxClient } from '../api/client.js';
import type { ArtifactStore } from './artifacts.js';
import type { RunOptions } from './options.js';
import type { BoxInfo, StepRecord, VideoChapter, VideoRecord } from './types.js';

export { kVideoModes, type VideoMode } from './options.js';

/** What a run shares between its attempts: the warning said once, and a service known not to record. */
interface RunVideoState {
  unsupported: boolean;
  warned: Set<string>;
}
const kRunState = new WeakMap<object, RunVideoState>();

export interface VideoDeps {
  client: BoxClient;
  artifacts: ArtifactStore;
  /** The run's options: `video` is read from them, and they key the once-per-run state. */
  options: Pick<RunOptions, 'video'>;
  /** Where warnings go; default stderr (`warning: ...`). */
  warn?: (message: string) => void;
}

export interface AttemptVideo {
  /** Stops the recording and keeps the video when the mode says so (`failed`: the attempt failed). Never throws. */
  finish(steps: StepRecord[], failed: boolean, signal?: AbortSignal): Promise<VideoRecord | undefined>;
}

const stderrWarn = (message: string) => void process.stderr.write(`warning: ${message}\n`);

function stateOf(options: object): RunVideoState {
  let s = kRunState.get(options);
  if (!s) kRunState.set(options, (s = { unsupported: false, warned: new Set() }));
  return s;
}

/** The service has no recording: the route is unknown (404 that is not about the box), not allowed, or answered 501 (the service does not offer it). */
function isUnsupported(err: unknown): boolean {
  if (!(err instanceof BoxApiError)) return false;
  const s = err.httpStatus;
  return (s === 404 && err.serverCode !== 'BOX_NOT_FOUND') || s === 405 || s === 501;
}

/**
 * Starts recording the box for one attempt, when the run asks for video; undefined when it does not,
 * or when the service cannot record (warned).
 */
export async function startAttemptVideo(box: BoxInfo, deps: VideoDeps, signal?: AbortSignal): Promise<AttemptVideo | undefined> {
  const mode = deps.options.video ?? 'off';
  if (mode === 'off') return undefined;
  const state = stateOf(deps.options);
  if (state.unsupported) return undefined;
  const warn = (key: string, message: string) => {
    if (state.warned.has(key)) return;
    state.warned.add(key);
    (deps.warn ?? stderrWarn)(message);
  };
  const asked = Date.now();
  try {
    await deps.client.startRecording(box.id, signal ? { signal } : {});
  } catch (err) {
    if (isUnsupported(err)) {
      state.unsupported = true;
      warn('unsupported', `video: ${deps.client.baseUrl} does not record boxes (${(err as BoxApiError).httpStatus} on POST /boxes/{id}/actions/recording/start); running without video`);
    } else {
      warn(`start:${(err as { code?: string }).code ?? 'error'}`, `video: could not start recording box ${box.id}: ${(err as Error).message}; this attempt has no video`);
    }
    return undefined;
  }
  const answered = Date.now();
  return {
    async finish(steps, failed, finishSignal) {
      const opts = finishSignal ? { signal: finishSignal } : {};
      let result;
      try {
        result = await deps.client.stopRecording(box.id, undefined, opts);
      } catch (err) {
        warn(`stop:${(err as { code?: string }).code ?? 'error'}`, `video: could not stop recording box ${box.id}: ${(err as Error).message}; this attempt has no video`);
        return undefined;
      }
      if (mode === 'retain-on-failure' && !failed) return undefined;
      try {
        const contentType = result.contentType ?? (/\.webm(?:$|\?)/.test(result.presignedUrl) ? 'video/webm' : 'video/mp4');
        const ext = contentType === 'video/webm' ? 'webm' : 'mp4';
        const path = await deps.artifacts.putStream(await deps.client.streamObject(result.presignedUrl, opts), ext);
        const durationMs = result.durationMs;
        const chapters = videoChapters(steps, videoZero(result.startedAt, asked, answered), durationMs);
        const vtt = await deps.artifacts.put(Buffer.from(chaptersVtt(chapters, durationMs)), 'vtt');
        return { path, contentType, chapters, vtt, ...(durationMs !== undefined ? { durationMs } : {}), ...(result.truncated ? { truncated: result.truncated } : {}) };
      } catch (err) {
        warn(`download:${(err as { code?: string }).code ?? 'error'}`, `video: could not download the video of box ${box.id}: ${(err as Error).message}; this attempt has no video`);
        return undefined;
      }
    },
  };
}

/**
 * The video's 0 on this process's clock. The service's `startedAt` (its first frame, on the box's
 * clock) when it sent one: the recording began after the start was asked and its first frame was on
 * screen by the answer, so a time outside that is the two clocks disagreeing, and is brought back
 * inside. Without it, the answer's arrival: the service starts recording before it answers, so that
 * is late by the answer's way back (chapters come early).
 */
export function videoZero(startedAt: string | undefined, asked: number, answered: number): number {
  const t = startedAt === undefined ? NaN : Date.parse(startedAt);
  if (Number.isNaN(t)) return answered;
  return Math.min(answered, Math.max(asked, t));
}

/** A chapter per step that ran (nested ones too, in order), at its start from the recording's start. */
export function videoChapters(steps: StepRecord[], startedAt: number, durationMs?: number): VideoChapter[] {
  const out: VideoChapter[] = [];
  const walk = (list: StepRecord[]) => {
    for (const s of list) {
      if (s.status !== 'skipped') {
        let startMs = Math.max(0, Date.parse(s.startedAt) - startedAt);
        if (durationMs !== undefined) startMs = Math.min(startMs, durationMs);
        out.push({ stepId: s.id, label: s.label, ...(s.actionId ? { actionId: s.actionId } : {}), startMs, durationMs: s.durationMs });
      }
      if (s.children) walk(s.children);
    }
  };
  walk(steps);
  return out;
}

const vttTime = (ms: number) => {
  const t = Math.max(0, Math.round(ms));
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const s = Math.floor((t % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(t % 1000, 3)}`;
};

/**
 * The chapters as WebVTT (`<track kind="chapters">`): one cue per step, from its start to its end (a
 * nested step's cue inside its parent's), titled `<step id> <label>`, the actionId on a line of its own.
 */
export function chaptersVtt(chapters: VideoChapter[], durationMs?: number): string {
  const lines = ['WEBVTT', ''];
  for (const c of chapters) {
    let end = c.startMs + Math.max(1, c.durationMs ?? 1);
    if (durationMs !== undefined) end = Math.min(end, Math.max(durationMs, c.startMs + 1));
    // A cue's text may not hold "-->" or a blank line.
    const text = (t: string) => t.replace(/-->/g, '->').replace(/\n\s*\n/g, '\n');
    lines.push(`step-${c.stepId}`, `${vttTime(c.startMs)} --> ${vttTime(end)}`, text(`${c.stepId} ${c.label}`), ...(c.actionId ? [`actionId ${c.actionId}`] : []), '');
  }
  return lines.join('\n');
}
