// What a grid box cannot do: whatever needs the box's own machine. Its browser runs on a grid node
// that this server reaches only through WebDriver and DevTools, so it has no web terminal, no files
// (fs/rename, file: URLs) and no commands here; those endpoints answer 501 GRID_UNSUPPORTED, after
// the usual tenancy check (another tenant's box is still BOX_NOT_FOUND).
import { BoxflowError } from '../../errors.js';
import type { EndpointName } from '../../api/schemas.js';
import type { BoxEntry } from '../boxEntry.js';
import type { Answer, Call } from '../routes.js';

type Handlers = Record<EndpointName, (call: Call) => Promise<Answer>>;

const kNeedsMachine: Partial<Record<EndpointName, string>> = {
  webTerminalUrl: 'web terminal',
  renameFile: 'files (fs/rename)',
};

/** Whether `entry` is a Linux box whose browser is a grid session. */
export function isGridBox(entry: BoxEntry | undefined): boolean {
  return entry?.linux?.sourceKind === 'grid';
}

function refuse(what: string): BoxflowError {
  return new BoxflowError('GRID_UNSUPPORTED', `this box's browser runs on a Selenium Grid node, so it has no ${what} on this server; create a box on a server without --grid for that`);
}

/** A file: URL names a file on the box's machine: a grid box has none here. */
function opensFile(body: unknown): boolean {
  const url = typeof body === 'object' && body !== null ? (body as { url?: unknown }).url : undefined;
  if (typeof url !== 'string') return false;
  try {
    return new URL(url).protocol === 'file:';
  } catch {
    return false;
  }
}

/** `handlers` with the endpoints a grid box cannot serve refused for grid boxes. */
export function guardGridBoxes(handlers: Handlers, lookup: (tenant: string, boxId: string) => BoxEntry): Handlers {
  const guarded = { ...handlers };
  const wrap = (name: EndpointName, refused: (call: Call) => string | undefined) => {
    const inner = handlers[name];
    guarded[name] = async (call: Call) => {
      const boxId = call.params.boxId;
      if (boxId !== undefined && isGridBox(lookup(call.tenant, boxId))) {
        const what = refused(call);
        if (what) throw refuse(what);
      }
      return inner(call);
    };
  };
  for (const [name, what] of Object.entries(kNeedsMachine) as Array<[EndpointName, string]>) wrap(name, () => what);
  wrap('openTab', (call) => (opensFile(call.body) ? 'files (file: URLs)' : undefined));
  return guarded;
}
