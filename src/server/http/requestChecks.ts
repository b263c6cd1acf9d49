// A request's body is checked against its endpoint's TypeBox schema (the `endpoints` table) once,
// before its handler runs: by fastify for HTTP (app.ts sets each route's `schema` and this module's
// validator), by withBodyChecks for the websockets that call handlers (live view input, command
// sockets). A handler reads the body as the schema has it (bodyOf) and checks nothing again.
// A query is the same: its strings are first read into its schema's types (kQueryReaders: numbers,
// comma lists, `labels[k]`), then fastify checks it against the endpoint's query schema.
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../errors.js';
import { endpoints, type EndpointName } from '../../api/schemas.js';
import { preview, requestProblem } from '../../api/validate.js';
import type { Answer, Call } from './call.js';

/** A foreign (non-JSON) body: kept apart so a JSON route can refuse it clearly. */
export const kForeignBody = Symbol('foreignBody');
export interface ForeignBody {
  [kForeignBody]: string;
}

export function foreignBodyError(contentType: string): BoxflowError {
  return new BoxflowError('INVALID_REQUEST', `content-type ${preview(contentType)} is not accepted here; send application/json`);
}

/** The body as `schema` accepts it (an absent body is `{}`), or the 4xx that says why not. */
export function checkedBody(schema: TSchema, body: unknown): unknown {
  if (typeof body === 'object' && body !== null && kForeignBody in body) throw foreignBodyError((body as ForeignBody)[kForeignBody]);
  const data = body ?? {};
  const problem = requestProblem(schema, data);
  if (problem) throw problem;
  return data;
}

/** fastify's validator for a route's body schema: this API's errors, the same checks as a websocket's. */
export function bodyValidator(schema: TSchema): (data: unknown) => { value: unknown } | { error: Error } {
  return (data) => {
    try {
      return { value: checkedBody(schema, data) };
    } catch (err) {
      return { error: err as Error };
    }
  };
}

/** The body of a call whose endpoint has `schema`, as checked before the handler. */
export function bodyOf<S extends TSchema>(_schema: S | undefined, body: unknown): Static<S> {
  return (body ?? {}) as Static<S>;
}

/** fastify's validator for a route's query schema (the query read by kQueryReaders first). */
export function queryValidator(schema: TSchema): (data: unknown) => { value: unknown } | { error: Error } {
  return (data) => {
    const problem = requestProblem(schema, data ?? {}, 'query ');
    return problem ? { error: problem } : { value: data ?? {} };
  };
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.join(',') : String(v)).split(',').filter(Boolean);
/** A number where the schema wants one; other text is left for the schema to refuse. */
const count = (v: unknown): unknown => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v);
const withDepth = (q: Record<string, unknown>) => ('depth' in q ? { ...q, depth: count(q.depth) } : q);
const lists = (...keys: string[]) => (q: Record<string, unknown>) => {
  const out: Record<string, unknown> = { ...q };
  for (const k of keys) if (q[k] !== undefined) out[k] = list(q[k]);
  return out;
};

/** How an endpoint's query strings become its schema's types, before fastify checks them. */
export const kQueryReaders: Partial<Record<EndpointName, (query: Record<string, unknown>) => Record<string, unknown>>> = {
  // page and pageSize are numbers, type and status comma lists, `labels[k]=v` a label filter.
  listBoxes: (raw) => {
    const q: Record<string, unknown> = {};
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      const label = /^labels\[(.+)\]$/.exec(k);
      if (label) labels[label[1]!] = Array.isArray(v) ? v.join(',') : String(v);
      else if (k === 'page' || k === 'pageSize') q[k] = count(Array.isArray(v) ? v.join(',') : v);
      else if (k === 'type' || k === 'status') q[k] = list(v);
      else q[k] = v;
    }
    return { ...q, labels };
  },
  listPackages: lists('pkgType', 'runningFilter'),
  listPackagesSimple: lists('pkgType'),
  listFiles: withDepth,
  readFile: withDepth,
  fileInfo: withDepth,
};

type Handlers = Record<EndpointName, (call: Call) => Promise<Answer>>;

/** The handlers, each checking its call's body first: for callers that are not fastify routes. */
export function withBodyChecks(handlers: Handlers): Handlers {
  const out = { ...handlers };
  for (const [name, ep] of Object.entries(endpoints) as Array<[EndpointName, { body?: TSchema }]>) {
    const schema = ep.body;
    const handler = handlers[name];
    if (schema && handler) out[name] = async (call) => handler({ ...call, body: checkedBody(schema, call.body) });
  }
  return out;
}
