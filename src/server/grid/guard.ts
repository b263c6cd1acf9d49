// The one place that answers what a grid box cannot do (the table of grid/capabilities.ts): each
// refused endpoint is 501 GRID_UNSUPPORTED with the table's reason, after the usual tenancy check
// (another tenant's box is still BOX_NOT_FOUND). A request that names no box (POST /boxes/linux) is
// the server's: on a server with --grid every Linux box it makes is a grid box.
import { BoxflowError } from '../../errors.js';
import { endpoints, type EndpointName } from '../../api/schemas.js';
import type { BoxEntry } from '../boxEntry.js';
import type { Answer, Call } from '../call.js';
import { kGridRefusals, type Refusal } from './capabilities.js';

type Handlers = Record<EndpointName, (call: Call) => Promise<Answer>>;

/** Whether `entry` is a Linux box whose browser is a grid session. */
export function isGridBox(entry: BoxEntry | undefined): boolean {
  return entry !== undefined && entry.kind !== 'android' && entry.linux.sourceKind === 'grid';
}

/** The answer to `name` on a grid box. */
export function gridRefusal(name: EndpointName, refusal: Refusal): BoxflowError {
  const { method, path } = endpoints[name];
  return new BoxflowError('GRID_UNSUPPORTED', `${method} ${path}: a grid box's browser runs on a Selenium Grid node, so it has no ${refusal.lacks} on this server; create a box on a server without --grid for that`);
}

/** `handlers` with the endpoints of kGridRefusals refused for grid boxes. */
export function guardGridBoxes(handlers: Handlers, lookup: (tenant: string, boxId: string) => BoxEntry): Handlers {
  const guarded = { ...handlers };
  for (const [name, refusal] of Object.entries(kGridRefusals) as Array<[EndpointName, Refusal]>) {
    const inner = handlers[name];
    guarded[name] = async (call: Call) => {
      const boxId = call.params.boxId;
      const onGrid = boxId === undefined || isGridBox(lookup(call.tenant, boxId));
      if (onGrid && (refusal.when?.(call.body) ?? true)) throw gridRefusal(name, refusal);
      return inner(call);
    };
  }
  return guarded;
}
