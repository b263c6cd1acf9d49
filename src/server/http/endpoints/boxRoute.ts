// What the GBOX handler modules of the Android apps, media and storage endpoints need of routes.ts,
// as types of their own: routes.ts imports those modules, so they do not import it back.
import type { EndpointName } from '../../../api/schemas.js';
import type { BoxEntry } from '../../boxes/boxEntry.js';
import type { BoxDevice } from '../../devices/device.js';

/** The part of routes.ts's Call a handler reads. */
export interface RouteCall {
  params: Record<string, string>;
  body: unknown;
  query: Record<string, unknown>;
  /** e.g. http://127.0.0.1:28080, from the request's Host header. */
  origin: string;
  /** Aborts when the client goes away before the answer. */
  signal?: AbortSignal;
}

/** routes.ts's Answer. */
export interface RouteAnswer {
  status: number;
  body?: unknown;
  /** Send `body` (a string) as a JSON string literal. */
  jsonString?: boolean;
  /** Headers of a non-JSON answer (a download). */
  headers?: Record<string, string>;
}

/** routes.ts's boxCall: tenancy, box type and state, the box's queue, then `work`. */
export type BoxCall<C extends RouteCall> = <T>(name: EndpointName, call: C, work: (entry: BoxEntry, device: BoxDevice) => Promise<T>) => Promise<T>;
