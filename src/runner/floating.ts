// The box calls and expects of a TS flow that the flow did not await. A call's promise is handled
// the moment it is made, so a failure nobody awaits never reaches the process as an unhandled
// rejection; the flow gets a proxy of it that counts as awaited once the flow reads its
// then/catch/finally (what `await`, `.then()` and `Promise.all` do), as Playwright's floating
// promise scope does. Whoever runs the flow asks at its end which calls were never awaited.
import { BoxflowError } from '../errors.js';
import { callerLocation } from '../flow/index.js';
import type { SourceLocation } from '../flow/types.js';
import { relativeSource } from './sourcePath.js';

export interface FloatingCall {
  /** How the flow wrote it: `box.tap(...)`, `expect(box).not.toShow(...)`. */
  what: string;
  source: SourceLocation;
}

type Fn = (...args: unknown[]) => unknown;
const kAwaitedBy = new Set<PropertyKey>(['then', 'catch', 'finally']);

export class FloatingCalls {
  readonly #calls = new Set<FloatingCall>();

  /** Calls the flow has not awaited (yet), in the order it made them. */
  get unawaited(): FloatingCall[] {
    return [...this.#calls];
  }

  /** `fn` with every call tracked as `what` made at the flow's line; a value that is no promise passes as it is. */
  wrap<F extends Fn>(fn: F, what: string): F {
    const calls = this.#calls;
    return function (this: unknown, ...args: unknown[]) {
      const source = callerLocation();
      const result = fn.apply(this, args);
      if (!(result instanceof Promise)) return result;
      result.catch(() => {});
      const call: FloatingCall = { what, source };
      calls.add(call);
      return new Proxy(result, {
        get(target, prop) {
          if (kAwaitedBy.has(prop)) calls.delete(call);
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as Fn).bind(target) : value;
        },
      });
    } as F;
  }

  /** Each method of `object` wrapped, named `${prefix}.${name}(...)`; other values as they are. */
  wrapAll<T extends object>(object: T, prefix: string): T {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(object)) out[name] = typeof value === 'function' ? this.wrap(value as Fn, `${prefix}.${name}(...)`) : value;
    return out as T;
  }

  /**
   * The flow's failure when it left calls unawaited: each named with its line, e.g.
   * "`box.tap(...)` at forgot.flow.ts:4:3 was not awaited".
   */
  error(rootDir: string): BoxflowError | undefined {
    const calls = this.unawaited;
    if (!calls.length) return undefined;
    const named = calls.slice(0, 5).map((c) => `\`${c.what}\` at ${at(c.source, rootDir)}`);
    const more = calls.length > 5 ? ` and ${calls.length - 5} more` : '';
    const list = named.length > 1 ? `${named.slice(0, -1).join(', ')}${more ? ', ' : ' and '}${named.at(-1)}${more}` : named[0];
    return new BoxflowError('FLOW_ERROR', `${list} ${calls.length > 1 ? 'were' : 'was'} not awaited: add await before ${calls.length > 1 ? 'each' : 'it'} (a call not awaited runs beside the next ones, and its failure would go unseen)`);
  }
}

function at(source: SourceLocation, rootDir: string): string {
  const rel = relativeSource(source, rootDir);
  return rel.line > 0 ? `${rel.file}:${rel.line}:${rel.column}` : 'an unknown line';
}
