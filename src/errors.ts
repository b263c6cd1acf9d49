// Every error boxflow raises carries one of these stable codes. Callers match on `code`,
// never on message text. docs/errors.md documents each code; test/unit/errors.test.ts keeps
// the two lists equal. A leaf module: every folder of src/ may import it, it imports nothing.

/** Exit-code class of an error: 1 a flow failed, 2 bad input, 3 infrastructure. */
export type ExitClass = 1 | 2 | 3;

interface CodeInfo {
  /** HTTP status when the error crosses the wire (server answers, client maps). */
  status?: number;
  exit: ExitClass;
  summary: string;
}

export const errorCodes = {
  // Box API, client side and wire (status-mapped)
  INVALID_REQUEST: { status: 400, exit: 2, summary: 'The request failed validation; the message names the JSON path.' },
  UNAUTHORIZED: { status: 401, exit: 3, summary: 'The API key is missing, malformed, badly signed or expired.' },
  FORBIDDEN: { status: 403, exit: 3, summary: 'Not allowed: the API key may not do this, or a path or URL leads outside the box.' },
  NOT_FOUND: { status: 404, exit: 3, summary: 'No such route or resource (for boxes: see BOX_NOT_FOUND).' },
  BOX_NOT_FOUND: { status: 404, exit: 3, summary: 'No box with this id belongs to the caller\'s tenant.' },
  CONFLICT: { status: 409, exit: 3, summary: 'The resource is in a state that does not allow this request.' },
  UNPROCESSABLE: { status: 422, exit: 1, summary: 'The request was well formed but could not be carried out.' },
  RATE_LIMITED: { status: 429, exit: 3, summary: 'Too many requests; retried after Retry-After where safe.' },
  TOO_MANY_BOXES: { status: 429, exit: 3, summary: 'The API key already has as many live boxes as the server allows it (`serve --max-boxes-per-key`, default 32); terminate one first.' },
  SERVER_ERROR: { status: 500, exit: 3, summary: 'The service answered 5xx.' },
  HTTP_ERROR: { exit: 3, summary: 'Any other non-2xx status (405, 408, 413, ...).' },
  NETWORK_ERROR: { exit: 3, summary: 'The connection failed (refused, reset, DNS) before a response arrived.' },
  TIMEOUT: { exit: 3, summary: 'No response within the request timeout.' },
  ABORTED: { exit: 3, summary: 'The caller aborted the request through its AbortSignal.' },
  INVALID_RESPONSE: { exit: 3, summary: 'A response did not match the API schema; the message names the JSON path.' },
  FILE_TOO_LARGE: { status: 413, exit: 2, summary: 'An upload is over its limit (APK/ZIP: 512 MB); refused before a byte is sent.' },
  INVALID_ARGUMENT: { exit: 2, summary: 'A client call got an argument it cannot send (bad path segment, bad duration, ...).' },
  INVALID_DURATION: { status: 400, exit: 2, summary: 'A duration string is not <number><ms|s|m|h> or is out of range.' },

  // boxflow serve
  ANDROID_UNAVAILABLE: { status: 422, exit: 3, summary: 'No Android device backend (ADB) is available on this server.' },
  NO_DEVICE_AVAILABLE: { status: 409, exit: 3, summary: 'Every online Android device that matches the request is claimed by another box (or none matches).' },
  DEVICE_OFFLINE: { status: 503, exit: 3, summary: 'The Android box\'s device went offline or was unplugged; the box is in status error.' },
  DEVICE_ERROR: { status: 502, exit: 3, summary: 'An Android device command failed; the message carries the device\'s own output.' },
  DEVICE_TIMEOUT: { status: 504, exit: 3, summary: 'An Android request used up its bound of device time (type: 60 s) before its device commands were done; the rest was not sent.' },
  INSTALL_FAILED: { status: 422, exit: 1, summary: 'The device refused to install the APK (the message has its INSTALL_FAILED_* reason).' },
  PACKAGE_NOT_FOUND: { status: 404, exit: 1, summary: 'No package with this name is installed on the Android box.' },
  UNSUPPORTED_BOX_TYPE: { status: 400, exit: 2, summary: 'The endpoint does not apply to this box type (e.g. Android-only on a Linux box).' },
  TARGET_NOT_FOUND: { status: 422, exit: 1, summary: 'A natural-language/text drag target matched nothing; details list candidates.' },
  TARGET_AMBIGUOUS: { status: 422, exit: 1, summary: 'A text drag target matched several elements; details list them.' },
  INVALID_URL: { status: 400, exit: 2, summary: 'A URL to open is not a valid absolute URL.' },
  URL_UNREACHABLE: { status: 422, exit: 1, summary: 'A URL to open could not be loaded (DNS, refused, TLS, ...).' },
  TAB_NOT_FOUND: { status: 404, exit: 1, summary: 'The box\'s browser has no tab with this id (ids are those of GET /browser/tabs; a closed tab\'s id is gone).' },
  WEB_TERMINAL_UNAVAILABLE: { status: 422, exit: 3, summary: 'This server cannot offer a web terminal for the box (boxflow serve: node-pty or @xterm/xterm is not installed or failed to load, and the message names the `npm install` to run; or not a Linux box).' },
  PACKAGE_UNAVAILABLE: { status: 501, exit: 3, summary: 'boxflow serve lacks an npm package a feature needs (@napi-rs/canvas, a dependency, for scaled or clipped Android screenshots, should its binary fail to load; a trace is then left out, the action still acts); the message names the `npm install` to run.' },
  NOT_OFFERED_LOCALLY: { status: 501, exit: 3, summary: 'A GBOX endpoint boxflow serve does not offer: a feature of the cloud account (snapshots, devices, the box and browser proxies, the hosted model), model extraction, the recording rewind, or stopping a box; asking again will not help.' },
  BOX_NOT_RUNNING: { status: 409, exit: 3, summary: 'The box is terminated or not running.' },
  RECORDING_UNAVAILABLE: { status: 501, exit: 3, summary: 'This server cannot record the box\'s screen: boxflow serve finds no ffmpeg (Debian\'s `ffmpeg`; BOXFLOW_FFMPEG names another), which Linux recordings and joined Android ones need.' },
  PRESIGN_INVALID: { status: 403, exit: 3, summary: 'A pre-signed URL has a bad or tampered signature.' },
  PRESIGN_EXPIRED: { status: 403, exit: 3, summary: 'A pre-signed URL has expired.' },
  FILE_NOT_FOUND: { status: 404, exit: 1, summary: 'A file-system path does not exist in the box.' },
  FILE_EXISTS: { status: 409, exit: 1, summary: 'A file-system target path already exists in the box.' },
  BROWSER_ERROR: { status: 502, exit: 3, summary: 'The box\'s browser failed or crashed while serving the request.' },
  BOX_CRASHED: { status: 502, exit: 3, summary: 'The box\'s Chromium exited on its own; the box is in status `error` with the reason until it is terminated.' },
  GRID_UNAVAILABLE: { status: 503, exit: 3, summary: 'boxflow serve --grid: the Selenium Grid gave no session for a Linux box: it is unreachable, refused (its reason is in the message), or had no free slot within the wait (`--grid-session-timeout`, default 30 s); the request was withdrawn.' },
  // The endpoints named here are those the grid kind declares (src/server/devices/kinds.ts; test/unit/gridRefusals.test.ts).
  GRID_UNSUPPORTED: { status: 501, exit: 3, summary: 'The box\'s browser runs on a Selenium Grid node, so what needs the box\'s own machine is not available on it: a shell (POST /commands, POST /run-code, GET /websocket-url), the web terminal (POST /web-terminal-url), files (GET /fs/list, GET /fs/read, POST /fs/write, POST /fs/exists, GET /fs/info, DELETE /fs, POST /fs/rename; paths under /boxes/{boxId}), POST /browser/tabs and PUT /browser/tabs/{tabId} with a file: URL, and POST /boxes/linux with config.envs or config.workingDir.' },
  BROWSER_TIMEOUT: { status: 504, exit: 3, summary: 'The box\'s browser did not answer a command in time (e.g. a page stuck in a loop).' },
  REQUEST_CANCELLED: { status: 499, exit: 3, summary: 'The client went away before its request ran or finished; the server cancelled the work.' },
  BODY_TOO_LARGE: { status: 413, exit: 2, summary: 'A request body is over the server\'s limit (JSON: 2 MiB).' },
  HEADERS_TOO_LARGE: { status: 431, exit: 2, summary: 'The request line and headers are over the server\'s limit (16 KiB).' },
  URI_TOO_LONG: { status: 414, exit: 2, summary: 'A path parameter (e.g. a box id) is over 100 characters.' },
  CHROMIUM_NOT_FOUND: { exit: 3, summary: 'No Chromium executable was found (set BOXFLOW_CHROMIUM).' },
  INTERNAL: { status: 500, exit: 3, summary: 'An unexpected server fault; the log line carries the details.' },

  // flows, config, CLI
  FLOW_SYNTAX: { exit: 2, summary: 'A flow file is not valid YAML (or TypeScript failed to load).' },
  FLOW_SCHEMA: { exit: 2, summary: 'A flow does not match the flow schema: unknown step or key, wrong type, bad duration.' },
  STEP_INVALID: { exit: 2, summary: 'A step\'s arguments turned out invalid only when it ran, so `boxflow validate` could not see them: an unknown or unset ${VAR}, a ${...} value not of the form the step takes (a point, a timeout, a number), a TypeScript flow\'s `box.step({...})`, a swipe/drag missing its ends, or what the flow has not set up (no appId, nothing copied, no recording started).' },
  FLOW_NOT_FOUND: { exit: 2, summary: 'A flow path, runFlow file or selected flow does not exist.' },
  CONFIG_INVALID: { exit: 2, summary: 'The config file or a CLI flag is invalid.' },
  RESULTS_INVALID: { exit: 2, summary: 'A run folder given to merge-reports holds no results.json/results.jsonl, or one that is not a boxflow run\'s (a corrupt line, not JSON, not a RunResult).' },

  // runner and assertions
  ELEMENT_NOT_FOUND: { exit: 1, summary: 'A selector matched no visible element before the step timeout.' },
  COMMAND_FAILED: { exit: 1, summary: 'A runCommand step\'s command exited with another code than the step expects (default 0); the message ends with its last lines.' },
  TARGET_OBSCURED: { exit: 1, summary: 'A pointer action\'s element was not the one under the pointer where it would land (covered, or still moving) before the step timeout.' },
  ASSERT_LAYOUT: { exit: 1, summary: 'A layout assertion (visible, not visible, count, text, attributes) failed.' },
  ASSERT_SCREENSHOT: { exit: 1, summary: 'A screenshot differs from its baseline beyond the allowed limits.' },
  SCREENSHOT_UNSTABLE: { exit: 1, summary: 'Two consecutive screenshots never agreed before the step timeout.' },
  IMAGE_CORRUPT: { exit: 2, summary: 'A PNG (a baseline, or a screenshot from the box) is corrupt or hostile: a chunk fails its CRC, its image data does not inflate, inflates past the size its header declares, or its dimensions are absurd; refused before its pixels are decoded, never reported as a difference.' },
  ASSERT_PACKAGE: { exit: 1, summary: 'An Android package assertion failed.' },
  ASSERT_TAB: { exit: 1, summary: 'A tab\'s title or URL did not match: an `openTab` `expect`, `assertUrl` or `assertTitle`.' },
  ASSERT_CLIPBOARD: { exit: 1, summary: 'The box\'s clipboard did not hold the text `assertClipboard` expected before the step timeout.' },
  ASSERT_DEVICE: { exit: 1, summary: 'The device was not in the state `assertDevice` expected (dark mode, airplane mode).' },
  GEOMETRY_UNAVAILABLE: { exit: 3, summary: 'The box cannot give element geometry (no CDP on a Linux box), so a tap cannot be aimed.' },
  STEP_TIMEOUT: { exit: 1, summary: 'A step did not finish within its timeout.' },
  FLOW_TIMEOUT: { exit: 1, summary: 'A flow did not finish within its timeout.' },
  BOX_UNAVAILABLE: { exit: 3, summary: 'The flow\'s box died or could not be created.' },
  WEB_SERVER_FAILED: { exit: 3, summary: 'The config\'s webServer command exited or did not answer at its url in time; the message has its stderr.' },
  FLOW_ERROR: { exit: 1, summary: 'A TypeScript flow threw outside a step (an error in the flow\'s own code).' },
  REPORTER_ERROR: { exit: 3, summary: 'A reporter threw; the run went on and the exit code shows it.' },
  RUN_INTERRUPTED: { exit: 3, summary: 'The run was killed before this flow finished; the report keeps its finished steps.' },
  RUN_STALLED: { exit: 3, summary: 'The run stopped with flows unfinished and nothing left that could finish them (a promise that never settles); it still ends with its summary and reports, its unfinished flows RUN_INTERRUPTED.' },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof errorCodes;

/** The exit code a failure with this code maps to. */
export function exitClassOf(code: string): ExitClass {
  return (errorCodes as Record<string, CodeInfo>)[code]?.exit ?? 3;
}

const kBrand = Symbol.for('boxflow.error');

export class BoxflowError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BoxflowError';
    this.code = code;
    if (options?.details !== undefined) this.details = options.details;
  }
  get status(): number | undefined {
    return (errorCodes[this.code] as CodeInfo).status;
  }
  get [kBrand]() {
    return true;
  }
  /** Works across copies of the package (undici's reason for a Symbol.for brand). */
  static is(err: unknown): err is BoxflowError {
    return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[kBrand] === true;
  }
}

/**
 * A message written at more than one site, kept beside its code, as fastify's `createError` does:
 * `%s` takes the next argument as text, `%j` as JSON. `kStepValue('timeout', '${x}', 'soon', 'a duration')`.
 */
export function createError(code: ErrorCode, template: string): (...args: unknown[]) => BoxflowError {
  return (...args) => {
    let k = 0;
    const message = template.replace(/%[sj]/g, (spec) => {
      const v = args[k++];
      return spec === '%j' ? JSON.stringify(v) : String(v);
    });
    return new BoxflowError(code, message);
  };
}

/** A step's `${...}` value, evaluated when it ran, is not what it takes: (what, as written, its value, what it takes). */
export const kStepValue = createError('STEP_INVALID', '%s: %s is %j, not %s');
/** A step needs the app the flow tests: (the step, where its own appId goes). */
export const kStepNeedsApp = createError('STEP_INVALID', '%s needs an app: give %s appId, or set appId: at the top of the flow');
/** (what, the device's state, the state expected). */
export const kAssertDevice = createError('ASSERT_DEVICE', 'assertDevice: %s is %s, expected %s');
