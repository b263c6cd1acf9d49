// A minimal Matroska stream of JPEG frames, each with its own timestamp, for ffmpeg's stdin. ffmpeg's
// `image2pipe` input has no timestamps (a frame lasts 1/rate, so a page that draws 3 frames in 10 s
// would make a 0.1 s video); Matroska carries one per frame, so the video shows each frame exactly as
// long as the page showed it, with nothing repeated over the pipe. This is what Playwright's video
// recorder does too (its ebml.ts, since 2026-06). Layout: EBML header, then a Segment of unknown size
// (a live stream) holding Info (1 ms ticks), one video track (V_MJPEG), and one Cluster per frame.

const kUnknownSize = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

/** An EBML variable-size integer of `n` (a data size), in the fewest bytes that hold it. */
function vsize(n: number): Buffer {
  for (let len = 1; len <= 8; len++) {
    // All ones is reserved (unknown size): the largest value of `len` bytes is 2^(7·len) − 2.
    if (n < 2 ** (7 * len) - 1) {
      const out = Buffer.alloc(len);
      let v = n;
      for (let i = len - 1; i >= 0; i--) {
        out[i] = v % 256;
        v = Math.floor(v / 256);
      }
      out[0]! |= 1 << (8 - len);
      return out;
    }
  }
  throw new RangeError(`EBML size ${n} is too large`);
}

function id(hex: number): Buffer {
  const bytes: number[] = [];
  for (let v = hex; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes);
}

function element(elementId: number, data: Buffer): Buffer {
  return Buffer.concat([id(elementId), vsize(data.length), data]);
}

function uint(elementId: number, value: number): Buffer {
  const bytes: number[] = [];
  let v = Math.max(0, Math.floor(value));
  do {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  } while (v > 0);
  return element(elementId, Buffer.from(bytes));
}

function str(elementId: number, value: string): Buffer {
  return element(elementId, Buffer.from(value, 'utf8'));
}

/** The stream's start: EBML header, Segment (unknown size), Info and the one MJPEG track. */
export function mkvHeader(width: number, height: number): Buffer {
  const ebml = element(0x1a45dfa3, Buffer.concat([uint(0x4286, 1), uint(0x42f7, 1), uint(0x42f2, 4), uint(0x42f3, 8), str(0x4282, 'matroska'), uint(0x4287, 4), uint(0x4285, 2)]));
  const info = element(0x1549a966, Buffer.concat([uint(0x2ad7b1, 1_000_000), str(0x4d80, 'boxflow'), str(0x5741, 'boxflow')]));
  const video = element(0xe0, Buffer.concat([uint(0xb0, width), uint(0xba, height)]));
  const track = element(0xae, Buffer.concat([uint(0xd7, 1), uint(0x73c5, 1), uint(0x83, 1), str(0x86, 'V_MJPEG'), video]));
  const tracks = element(0x1654ae6b, track);
  return Buffer.concat([ebml, id(0x18538067), kUnknownSize, info, tracks]);
}

/** One frame: a Cluster at `ms` (from the stream's start) holding a SimpleBlock of the JPEG, a key frame. */
export function mkvFrame(jpeg: Buffer, ms: number): Buffer {
  // Track 1 (vint 0x81), relative time 0 (int16), flags 0x80 (key frame), then the JPEG.
  const block = element(0xa3, Buffer.concat([Buffer.from([0x81, 0x00, 0x00, 0x80]), jpeg]));
  return element(0x1f43b675, Buffer.concat([uint(0xe7, ms), block]));
}

/** The last frame: a BlockGroup with a BlockDuration of `durationMs`, so the video ends exactly at `ms + durationMs`. */
export function mkvLastFrame(jpeg: Buffer, ms: number, durationMs: number): Buffer {
  const block = element(0xa1, Buffer.concat([Buffer.from([0x81, 0x00, 0x00, 0x00]), jpeg]));
  const group = element(0xa0, Buffer.concat([block, uint(0x9b, durationMs)]));
  return element(0x1f43b675, Buffer.concat([uint(0xe7, ms), group]));
}
