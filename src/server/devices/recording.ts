// What a recording is on every kind of box (POST /actions/recording/start and /stop): its bounds,
// the file it ends as, and the ffmpeg that encodes it.
import { BoxflowError } from '../../errors.js';

export interface RecordingLimits {
  /** The longest recording; it ends by itself then (stop still answers it). */
  maxMs: number;
  /** The largest video file; ffmpeg ends the file there. */
  maxBytes: number;
}

/** A finished recording on the server's disk. `dir` is removed by whoever stores the file. */
export interface VideoFile {
  file: string;
  dir: string;
  contentType: string;
  ext: string;
  durationMs: number;
  size: number;
  /** Why the video ends before the stop, when it does: the length or size bound. */
  truncated?: 'duration' | 'size';
  /** The time of the video's first frame (its 0), on this server's clock (Date.now()); absent when the box cannot tell. */
  startedAt?: number;
}

export interface Recorder {
  /** Ends the recording and answers its file (the caller removes `dir`). */
  stop(): Promise<VideoFile>;
  /** Ends it and throws the file away (box terminated, a newer recording). */
  abort(): Promise<void>;
}

/** The ffmpeg to run: BOXFLOW_FFMPEG, else `ffmpeg` on PATH (Debian's, installed by scripts/setup.mjs). */
export function ffmpegPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.BOXFLOW_FFMPEG || 'ffmpeg';
}

export function recordingUnavailable(why: string): BoxflowError {
  return new BoxflowError('RECORDING_UNAVAILABLE', `this server cannot record: ${why}; install Debian's ffmpeg (apt-get install ffmpeg) or set BOXFLOW_FFMPEG`);
}

