// A Linux box's recording: the active page's screencast (Page.startScreencast on a CDP connection of
// the recording's own, apart from the one actions and the frame watch use), each JPEG frame at the
// moment Chromium drew it, muxed into Matroska (recordingMkv.ts) on ffmpeg's stdin and encoded to
// VP8/WebM (what Playwright's videos are, and what every browser's <video> plays).
//
// Timing: a frame is drawn only when the page changes, so frames come at the rate Chromium draws
// them (a still page sends none, an animation up to 60 a second; more than 30 a second are thinned to
// the latest of each 1/30 s). Each frame carries `metadata.timestamp`, the time Chromium swapped it
// in; the video gives it that time from the video's 0 and shows it until the next one (ffmpeg keeps
// these variable frame times: `-fps_mode passthrough`), so the video's clock is the page's clock,
// with no frame repeated over the pipe. The video's 0 is its first frame: the page's first frame when
// it is drawn within kFirstFrameMs of the start (at the time it was drawn), else a white one at the
// start. Start answers once that frame is written and stop gives its time (`startedAt`), so a runner
// puts each step's chapter where the video shows the step, whatever the start's answer took to reach
// it. On stop the last frame is written once more, ending exactly at the stop, so the video lasts
// from its first frame to the stop. The page followed is always the box's active one: a new tab, or
// the next browser after closeBrowser, is picked up within kFollowMs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { BoxflowError } from '../../../errors.js';
import type { LinuxBox } from './chromium/linuxBox.js';
import type { CdpConnection } from '../../../cdp/connection.js';
import { mkvFrame, mkvHeader, mkvLastFrame } from './recordingMkv.js';
import { ffmpegPath, recordingUnavailable, type Recorder, type RecordingLimits, type VideoFile } from '../recording.js';

export { ffmpegPath, recordingUnavailable, type Recorder, type RecordingLimits, type VideoFile } from '../recording.js';

/** How often the recording checks which page is active. */
const kFollowMs = 100;
/** At most 30 frames a second reach the encoder (the latest of each 1/30 s is kept). */
const kMinFrameGapMs = 1000 / 30;
/** A first frame drawn within this of the start is the video's frame 0; a later one follows a white frame 0. */
const kFirstFrameMs = 100;
/** The video's largest side; a bigger box screen is scaled down (a 1280×800 box records at its size). */
const kMaxSide = 1280;
const kJpegQuality = 80;
/** A 16×16 white JPEG: the video's first frame when the box shows no page yet. */
const kBlankJpeg = Buffer.from(
  '/9j/4AAQSkZJRgABAgAAAQABAAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABLAAEBAAAAAAAAAAAAAAAAAAAABwEBAAAAAAAAAAAAAAAAAAAAABABAAAAAAAAAAAAAAAAAAAAABEBAAAAAAAAAAAAAAAAAAAAAP/AABEIABAAEAMBIgACEQADEQD/2gAMAwEAAhEDEQA/AL+AD//Z',
  'base64',
);

/** Width and height of a JPEG, from its first SOF marker; undefined when it has none. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7) };
    }
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  return undefined;
}

/** The video's size: the screen's, scaled to fit kMaxSide, even (VP8 needs it). */
export function videoSize(screen: { width: number; height: number }): { width: number; height: number } {
  const k = Math.min(1, kMaxSide / Math.max(screen.width, screen.height));
  const even = (n: number) => Math.max(2, Math.floor((n * k) / 2) * 2);
  return { width: even(screen.width), height: even(screen.height) };
}

/** Spawns ffmpeg; rejects RECORDING_UNAVAILABLE when it cannot run. */
async function spawnFfmpeg(args: string[]): Promise<ChildProcess> {
  const child = spawn(ffmpegPath(), args, { stdio: ['pipe', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) => reject(recordingUnavailable(`${ffmpegPath()} does not run (${(err as NodeJS.ErrnoException).code ?? err.message})`)));
  });
  return child;
}

export async function startLinuxRecording(linux: LinuxBox, limits: RecordingLimits, boxId?: string): Promise<Recorder> {
  const dir = await mkdtemp(join(tmpdir(), boxId ? `boxflow-rec-${boxId}-` : 'boxflow-rec-'));
  try {
    const recorder = new LinuxRecorder(linux, limits, dir);
    await recorder.start();
    return recorder;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

class LinuxRecorder implements Recorder {
  readonly #linux: LinuxBox;
  readonly #limits: RecordingLimits;
  readonly #dir: string;
  readonly #file: string;
  readonly #size: { width: number; height: number };
  #ffmpeg: ChildProcess | undefined;
  #exited: Promise<number | null> | undefined;
  #stderr = '';
  /** The video's 0 on this server's clock: the start, moved to the first frame's drawing when that comes within kFirstFrameMs. */
  #zero = 0;
  /** Resolves once the video's first frame is written (its 0 is then known). */
  #firstWritten: Promise<void>;
  #onFirstWritten: () => void = () => {};
  /** Browser clock → this server's (a grid node's clock may differ): the smallest arrival − timestamp seen. */
  #clockOffset: number | undefined;
  #headerDone = false;
  #lastMs = -1;
  #lastJpeg: Buffer | undefined;
  #pending: { jpeg: Buffer; ms: number } | undefined;
  #pendingTimer: NodeJS.Timeout | undefined;
  #page: Page | undefined;
  #cdp: CdpConnection | undefined;
  #switching = false;
  #follow: NodeJS.Timeout | undefined;
  #firstTimer: NodeJS.Timeout | undefined;
  #limitTimer: NodeJS.Timeout | undefined;
  #ended = false;
  #truncated: 'duration' | 'size' | undefined;
  #endedAtMs: number | undefined;

  constructor(linux: LinuxBox, limits: RecordingLimits, dir: string) {
    this.#linux = linux;
    this.#limits = limits;
    this.#dir = dir;
    this.#file = join(dir, 'video.webm');
    this.#size = videoSize(linux.resolution);
    this.#firstWritten = new Promise((resolve) => (this.#onFirstWritten = resolve));
  }

  async start(): Promise<void> {
    const { width: w, height: h } = this.#size;
    this.#ffmpeg = await spawnFfmpeg([
      '-hide_banner', '-nostats', '-loglevel', 'error',
      '-f', 'matroska', '-i', 'pipe:0',
      '-an',
      // Every frame fits the video's size, centred on white (a resolution change mid-recording included).
      '-vf', `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=white,format=yuv420p`,
      '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '8', '-qmin', '0', '-qmax', '50', '-b:v', '1M', '-threads', '1',
      // The frames' own times (variable frame rate), a key frame at least every 2 s so a jump to a step decodes at once.
      '-fps_mode', 'passthrough', '-force_key_frames', 'expr:gte(t,n_forced*2)',
      '-fs', String(this.#limits.maxBytes),
      '-f', 'webm', '-y', this.#file,
    ]);
    const ff = this.#ffmpeg;
    ff.stderr!.on('data', (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString('utf8')).slice(-4000);
    });
    ff.stdin!.on('error', () => {}); // ffmpeg ended the file (its size bound): what was written stays
    this.#exited = new Promise((resolve) => ff.once('close', (code) => resolve(code)));
    void this.#exited.then(() => {
      // ffmpeg ends early only at its size bound (-fs).
      if (!this.#ended) {
        this.#truncated ??= 'size';
        this.#endedAtMs = this.#lastMs;
        this.#shutDownInput();
      }
    });
    this.#zero = Date.now();
    this.#firstTimer = setTimeout(() => {
      if (!this.#headerDone) this.#write(kBlankJpeg, 0);
      this.#onFirstWritten(); // also when ffmpeg is gone: start then answers, and stop tells why
    }, kFirstFrameMs);
    this.#limitTimer = setTimeout(() => void this.#endInput('duration'), this.#limits.maxMs);
    await this.#followPage();
    this.#follow = setInterval(() => void this.#followPage(), kFollowMs);
    // The answer comes after the video's 0, so whoever asked can tell it from the time stop gives.
    await this.#firstWritten;
  }

  /** Moves the screencast to the box's active page when that changed. */
  async #followPage(): Promise<void> {
    if (this.#switching || this.#ended) return;
    const page = this.#linux.currentPage;
    if (page === this.#page) return;
    this.#switching = true;
    try {
      this.#cdp?.close();
      this.#cdp = undefined;
      this.#page = page;
      if (!page) return;
      const cdp = await this.#linux.recordingConnection(page).catch(() => undefined);
      if (!cdp) {
        this.#page = undefined; // try again at the next check
        return;
      }
      if (this.#ended || this.#page !== page) return cdp.close();
      this.#cdp = cdp;
      cdp.on('Page.screencastFrame', (p) => void this.#onFrame(cdp, p as { data: string; sessionId: number; metadata: { timestamp?: number } }));
      const { width, height } = this.#size;
      await cdp.send('Page.startScreencast', { format: 'jpeg', quality: kJpegQuality, maxWidth: width, maxHeight: height, everyNthFrame: 1 }, { timeoutMs: 5_000 }).catch(() => {
        cdp.close();
        if (this.#cdp === cdp) {
          this.#cdp = undefined;
          this.#page = undefined;
        }
      });
    } finally {
      this.#switching = false;
    }
  }

  async #onFrame(cdp: CdpConnection, p: { data: string; sessionId: number; metadata: { timestamp?: number } }): Promise<void> {
    const arrived = Date.now();
    if (!this.#ended) {
      const drawn = p.metadata.timestamp !== undefined ? p.metadata.timestamp * 1000 : arrived;
      // A frame cannot arrive before it was drawn: the offset is the smallest arrival − drawing seen.
      if (this.#clockOffset === undefined || arrived - drawn < this.#clockOffset) this.#clockOffset = arrived - drawn;
      this.#offer(Buffer.from(p.data, 'base64'), drawn + this.#clockOffset);
      const stdin = this.#ffmpeg?.stdin;
      // Back-pressure: Chromium sends the next frame after the ack, so a slow encoder slows the screencast.
      if (stdin && stdin.writableNeedDrain) await new Promise((r) => stdin.once('drain', r).once('close', r));
    }
    cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }).catch(() => {});
  }

  /**
   * A frame drawn at `drawnAt` (this server's clock): written, or held back while the last write is
   * under 1/30 s old (the latest held one is written then). The first one drawn soon after the start
   * is the video's 0 (one drawn before the start was on screen at the start).
   */
  #offer(jpeg: Buffer, drawnAt: number): void {
    if (!this.#headerDone) {
      clearTimeout(this.#firstTimer);
      if (drawnAt - this.#zero > kFirstFrameMs) this.#write(kBlankJpeg, 0);
      else this.#zero = Math.max(this.#zero, Math.round(drawnAt));
    }
    const ms = Math.round(drawnAt - this.#zero);
    if (this.#lastMs < 0) {
      this.#write(jpeg, 0);
      return;
    }
    if (ms - this.#lastMs >= kMinFrameGapMs) {
      this.#flushPending();
      this.#write(jpeg, ms);
      return;
    }
    this.#pending = { jpeg, ms };
    this.#pendingTimer ??= setTimeout(() => this.#flushPending(), Math.max(1, this.#lastMs + kMinFrameGapMs - (Date.now() - this.#zero)));
  }

  #flushPending(): void {
    clearTimeout(this.#pendingTimer);
    this.#pendingTimer = undefined;
    const p = this.#pending;
    this.#pending = undefined;
    if (p && !this.#ended) this.#write(p.jpeg, Math.max(p.ms, this.#lastMs + Math.ceil(kMinFrameGapMs)));
  }

  #write(jpeg: Buffer, ms: number): void {
    const stdin = this.#ffmpeg?.stdin;
    if (!stdin || stdin.destroyed || this.#ended) return;
    const at = Math.max(ms, this.#lastMs + 1);
    if (!this.#headerDone) {
      const size = jpegSize(jpeg) ?? { width: 16, height: 16 };
      stdin.write(mkvHeader(size.width, size.height));
      this.#headerDone = true;
      this.#onFirstWritten();
    }
    stdin.write(mkvFrame(jpeg, at));
    this.#lastMs = at;
    this.#lastJpeg = jpeg;
  }

  #shutDownInput(): void {
    this.#ended = true;
    this.#onFirstWritten();
    clearInterval(this.#follow);
    clearTimeout(this.#firstTimer);
    clearTimeout(this.#limitTimer);
    clearTimeout(this.#pendingTimer);
    const cdp = this.#cdp;
    this.#cdp = undefined;
    if (cdp) void cdp.send('Page.stopScreencast', {}, { timeoutMs: 2_000 }).catch(() => {}).finally(() => cdp.close());
  }

  /** Ends the video at now (or at the length bound) with the last frame held till then; ffmpeg then finishes the file. */
  async #endInput(why?: 'duration'): Promise<void> {
    if (this.#ended) return;
    this.#flushPending();
    const endMs = why === 'duration' ? this.#limits.maxMs : Math.min(Date.now() - this.#zero, this.#limits.maxMs);
    if (why) this.#truncated = why;
    const stdin = this.#ffmpeg?.stdin;
    if (!this.#headerDone) this.#write(kBlankJpeg, 0);
    if (stdin && !stdin.destroyed && this.#lastJpeg) {
      const at = Math.max(this.#lastMs + 1, endMs - 1);
      stdin.write(mkvLastFrame(this.#lastJpeg, at, 1));
      this.#lastMs = at;
    }
    this.#endedAtMs = this.#lastMs + 1;
    this.#shutDownInput();
    stdin?.end();
  }

  async stop(): Promise<VideoFile> {
    await this.#endInput();
    const ff = this.#ffmpeg!;
    const timer = setTimeout(() => ff.kill('SIGKILL'), 30_000);
    const code = await this.#exited!.finally(() => clearTimeout(timer));
    const size = (await stat(this.#file).catch(() => undefined))?.size ?? 0;
    if (!size || (code !== 0 && this.#truncated !== 'size')) {
      throw new BoxflowError('INTERNAL', `ffmpeg could not write the recording (exit ${code}): ${this.#stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'}`);
    }
    return {
      file: this.#file,
      dir: this.#dir,
      contentType: 'video/webm',
      ext: 'webm',
      durationMs: this.#endedAtMs ?? this.#lastMs,
      size,
      startedAt: this.#zero,
      ...(this.#truncated ? { truncated: this.#truncated } : {}),
    };
  }

  async abort(): Promise<void> {
    this.#shutDownInput();
    this.#ffmpeg?.kill('SIGKILL');
    await this.#exited?.catch(() => {});
    await rm(this.#dir, { recursive: true, force: true });
  }
}
