// What a grid box cannot do, declared once: the endpoints it refuses, each with what it lacks. Its
// browser runs on a Selenium Grid node that this server reaches only through WebDriver and DevTools,
// so whatever needs the box's own machine (a shell, files, a terminal, an environment, a working
// dir) is not there. The server answers each of these with 501 GRID_UNSUPPORTED and the reason here
// (grid/guard.ts), after the usual tenancy check; docs/scaling.md, docs/errors.md and src/errors.ts
// name every endpoint of this table (test/unit/gridRefusals.test.ts checks that they do).
// A leaf: it imports nothing of the server, so whatever declares a kind's abilities can take it whole.
import type { EndpointName } from '../../api/schemas.js';

export interface Refusal {
  /** What the box has not got for it, as the answer says: "… so it has no <lacks> on this server". */
  readonly lacks: string;
  /** Refuses only the requests whose body this holds for (and says which in `only`); without it, every request. */
  readonly when?: (body: unknown) => boolean;
  /** Which requests `when` refuses, for the docs. */
  readonly only?: string;
}

const field = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

/** A file: URL names a file on the box's own machine. */
function opensFile(body: unknown): boolean {
  const url = field(body, 'url');
  return typeof url === 'string' && URL.canParse(url) && new URL(url).protocol === 'file:';
}

/** A box's environment and working dir are made on its own machine. */
function setsMachine(body: unknown): boolean {
  const config = field(body, 'config');
  const envs = field(config, 'envs');
  return (typeof envs === 'object' && envs !== null && Object.keys(envs).length > 0) || field(config, 'workingDir') !== undefined;
}

const kFileUrl = { lacks: 'files (file: URLs)', when: opensFile, only: 'a `file:` URL' };

/** The endpoints a grid box refuses. */
export const kGridRefusals = {
  createLinuxBox: { lacks: 'environment or working dir (/config/envs, /config/workingDir)', when: setsMachine, only: '`config.envs` or `config.workingDir`' },
  runCommand: { lacks: 'shell (commands)' },
  runCode: { lacks: 'shell (run-code)' },
  websocketUrl: { lacks: 'shell (the command websocket)' },
  webTerminalUrl: { lacks: 'web terminal' },
  listFiles: { lacks: 'files (fs/list)' },
  readFile: { lacks: 'files (fs/read)' },
  writeFile: { lacks: 'files (fs/write)' },
  fileExists: { lacks: 'files (fs/exists)' },
  fileInfo: { lacks: 'files (fs/info)' },
  removeFile: { lacks: 'files (DELETE fs)' },
  renameFile: { lacks: 'files (fs/rename)' },
  openTab: kFileUrl,
  updateTab: kFileUrl,
} as const satisfies { readonly [E in EndpointName]?: Refusal };

/** An endpoint a grid box refuses. */
export type GridRefused = keyof typeof kGridRefusals;
