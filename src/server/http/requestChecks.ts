// A request's body is checked against its endpoint's TypeBox schema (the `endpoints` table) once,
// before its handler runs: by fastify for HTTP (app.ts sets each route's `schema` and this module's
// validator), by withBodyChecks for the websockets that call handlers (live view input, command
// sockets). A handler reads the body as the schema has it (bodyOf) and checks nothing again.
// Queries, which each endpoint first turns from strings into its schema's types, are checked by
// their handler (checkQuery).
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

/** A query, its values already turned into the schema's types by the handler: checked, or its 4xx. */
export function checkQuery<S extends TSchema>(schema: S | undefined, query: unknown): Static<S> {
  const problem = schema && requestProblem(schema, query ?? {}, 'query ');
  if (problem) throw problem;
  return (query ?? {}) as Static<S>;
}

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
