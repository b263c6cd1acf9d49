// An Android box's recording: the device's own `screenrecord` (H.264 MP4, timestamps from the device's
// encoder, frames only when the screen changes) into the box's working dir, stopped with SIGINT (it
// then finishes the MP4; a SIGKILL would leave it unplayable) and pulled over sync. Older builds of
// screenrecord refuse a time limit over 180 s (AOSP kMaxTimeLimitSec), so a longer recording is a
// chain of 180 s segments (rec.mp4, rec-2.mp4, ...), joined on the server by ffmpeg's concat demuxer
// without re-encoding, as Appium does. The bit rate is 2 Mbit/s: 10 minutes stay under 150 MB.
// The video's 0 is when screenrecord began encoding, a few hundred ms after the start request
// (the device starts its encoder). The server cannot tell when that was (screenrecord prints nothing
// of its first frame, and the MP4's times start at 0 there), so stop gives no `startedAt`: a runner
// counts the chapters from the start's answer (docs/api.md, docs/results.md).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../../errors.js';
import type { AndroidBox } from './androidBox.js';
import { sh } from '../../../api/shellQuote.js';
import { ffmpegPath, type Recorder, type RecordingLimits, type VideoFile } from '../recording.js';

/** screenrecord's longest `--time-limit` on every Android version. */
const kSegmentMaxS = 180;
export const kAndroidBitRate = 2_000_000;
/** A screenrecord that ends within this of its start failed to start (no encoder, a bad size): start says so. */
const kStartCheckMs = 300;
/** How long screenrecord may take to finish its MP4 after SIGINT (it checks every 250 ms). */
const kStopWaitMs = 15_000;
const kPullTimeoutMs = 5 * 60_000;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

interface Segment {
  path: string;
  /** Resolves to screenrecord's output once it has ended (time limit or SIGINT); rejects on a device failure. */
  done: Promise<string>;
}

export async function startAndroidRecording(android: AndroidBox, limits: RecordingLimits, boxId?: string): Promise<Recorder> {
  const dir = await mkdtemp(join(tmpdir(), boxId ? `boxflow-rec-${boxId}-` : 'boxflow-rec-'));
  const recorder = new AndroidRecorder(android, limits, dir);
  try {
    await recorder.start();
    return recorder;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

class AndroidRecorder implements Recorder {
  readonly #android: AndroidBox;
  readonly #limits: RecordingLimits;
  readonly #dir: string;
  readonly #segments: Segment[] = [];
  #start = 0;
  #stopped = false;
  #truncated: 'duration' | 'size' | undefined;
  /** The chain of segments: resolves once the last one has ended. */
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(android: AndroidBox, limits: RecordingLimits, dir: string) {
    this.#android = android;
    this.#limits = limits;
    this.#dir = dir;
  }

  /** This box's screenrecord processes, for pkill -f: the command line starts with screenrecord and names the box's dir. */
  get #pattern(): string {
    return `^screenrecord .*${this.#android.workDir}/rec`;
  }

  async start(): Promise<void> {
    this.#start = Date.now();
    const first = this.#record();
    this.#chain = this.#continue(first);
    // A screenrecord that cannot record (no encoder, an emulator without one) ends at once: say so now.
    const ended = await Promise.race([first.done.then((out) => ({ out }), (err: unknown) => ({ err })), sleep(kStartCheckMs).then(() => undefined)]);
    if (ended) {
      this.#stopped = true;
      await this.#removeOnDevice();
      if ('err' in ended) throw ended.err;
      throw new BoxflowError('DEVICE_ERROR', `screenrecord ended at once on ${this.#android.info.serial}: ${ended.out.trim().split('\n').slice(0, 3).join(' | ') || 'no output'}`);
    }
  }

  #record(): Segment {
    const n = this.#segments.length + 1;
    const path = `${this.#android.workDir}/${n === 1 ? 'rec' : `rec-${n}`}.mp4`;
    const leftMs = this.#limits.maxMs - (Date.now() - this.#start);
    const seconds = Math.max(1, Math.min(kSegmentMaxS, Math.ceil(leftMs / 1000)));
    const done = this.#android.shell(sh`screenrecord --bit-rate ${kAndroidBitRate} --time-limit ${seconds} ${path}`, (seconds + 30) * 1000);
    done.catch(() => {});
    const segment = { path, done };
    this.#segments.push(segment);
    return segment;
  }

  /** After a segment's time limit, the next one, until the stop or the length bound. */
  async #continue(segment: Segment): Promise<void> {
    try {
      await segment.done;
    } catch (err) {
      if (!this.#stopped) this.#failure = err;
      return;
    }
    if (this.#stopped) return;
    if (Date.now() - this.#start >= this.#limits.maxMs - 1000) {
      this.#truncated = 'duration';
      return;
    }
    await this.#continue(this.#record());
  }

  async #interrupt(): Promise<void> {
    this.#stopped = true;
    await this.#android.shell(sh`pkill -INT -f ${this.#pattern}`).catch(() => {});
    // An unref'd wait: once the chain has ended, its timer does not hold the process open for 15 s.
    await Promise.race([this.#chain, sleep(kStopWaitMs, undefined, { ref: false })]);
  }

  async stop(): Promise<VideoFile> {
    const wallMs = Date.now() - this.#start;
    await this.#interrupt();
    if (this.#failure) throw this.#failure;
    const parts: string[] = [];
    let bytes = 0;
    for (const [i, seg] of this.#segments.entries()) {
      const st = await this.#android.stat(seg.path);
      if (!st || st.mode === 0 || (st.mode & S_IFMT) === S_IFDIR) {
        if (i === 0) {
          const out = await seg.done.catch(() => '');
          throw new BoxflowError('DEVICE_ERROR', `screenrecord wrote no video on ${this.#android.info.serial}: ${out.trim().split('\n').slice(0, 3).join(' | ') || 'no output'}`);
        }
        continue;
      }
      const room = this.#limits.maxBytes - bytes;
      const local = join(this.#dir, `part-${i + 1}.mp4`);
      // Streamed to disk and counted as it comes: the size STAT gave bounds nothing (a file can grow, and
      // a link to /dev/zero is 9 bytes to STAT). Past the room left, the pull is closed and the part dropped.
      const over = new BoxflowError('DEVICE_ERROR', `${seg.path} is over the recording's ${this.#limits.maxBytes} bytes`);
      const got = st.size > room ? undefined : await this.#android.pullToFile(seg.path, local, room, () => over, kPullTimeoutMs).catch((err: unknown) => (err === over ? undefined : Promise.reject(err)));
      if (got === undefined) {
        await rm(local, { force: true });
        this.#truncated = 'size';
        break;
      }
      bytes += got;
      parts.push(local);
    }
    await this.#removeOnDevice();
    if (!parts.length) throw new BoxflowError('DEVICE_ERROR', `the recording on ${this.#android.info.serial} is larger than ${this.#limits.maxBytes} bytes`);
    let out = parts[0]!;
    if (parts.length > 1) {
      const joined = await concat(parts, this.#dir).catch(() => undefined);
      if (joined) out = joined;
      else this.#truncated = 'duration'; // no ffmpeg to join them: the first segment alone
    }
    const size = (await stat(out)).size;
    return { file: out, dir: this.#dir, contentType: 'video/mp4', ext: 'mp4', durationMs: Math.min(wallMs, this.#limits.maxMs), size, ...(this.#truncated ? { truncated: this.#truncated } : {}) };
  }

  async abort(): Promise<void> {
    await this.#interrupt().catch(() => {});
    await this.#removeOnDevice();
    await rm(this.#dir, { recursive: true, force: true });
  }

  async #removeOnDevice(): Promise<void> {
    const paths = this.#segments.map((s) => s.path);
    if (paths.length) await this.#android.shell(paths.map((p) => sh`rm -f ${p}`).join('; ')).catch(() => {});
  }
}

/** Joins MP4 segments without re-encoding (ffmpeg's concat demuxer); rejects when ffmpeg cannot. */
async function concat(parts: string[], dir: string): Promise<string> {
  const list = join(dir, 'parts.txt');
  await writeFile(list, parts.map((p) => `file '${p.replaceAll("'", "'\\''")}'\n`).join(''));
  const out = join(dir, 'video.mp4');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpegPath(), ['-hide_banner', '-nostats', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', '-y', out], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}`))));
  });
  return out;
}
