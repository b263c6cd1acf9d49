// The server's log: fastify's own logger (pino), one JSON line per entry, with what a log must
// never carry taken out before it is written (docs/server.md, "Logs").
import type { FastifyServerOptions } from 'fastify';
import { pino } from 'pino';

/** A log entry as the server's parts write it: `{level, msg, ...fields}`. */
export type LogEntry = Record<string, unknown>;
export type LogFn = (entry: LogEntry) => void;

export interface LoggerOptions {
  /** Default 'info'. */
  level?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Where the JSON lines go. Default: stderr. */
  stream?: { write(line: string): void };
}

const kRedacted = '[redacted]';
/** Fields that hold a credential wherever they stand in an entry. */
const kSecretFields = ['authorization', 'apiKey', 'secret', 'token', 'password'];
/** An API key is a JWT; a pre-signed URL carries its signature in its query. */
const kJwt = /eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]{4,}/g;
const kBearer = /(Bearer\s+)\S+/gi;

/**
 * fastify's logger options: pino at `level`, redacting credentials by path (the request's
 * Authorization and Cookie, any field named as one) and by value (the signing secret and any API
 * key or bearer token in a message or a stack), and logging a URL without its query values, where
 * pre-signed URLs keep their signature.
 */
export function loggerOptions(opts: LoggerOptions, secret: string): NonNullable<FastifyServerOptions['logger']> {
  const scrub = (text: string) => text.split(secret).join(kRedacted).replace(kJwt, kRedacted).replace(kBearer, `$1${kRedacted}`);
  const clean = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return scrub(value);
    if (depth > 4 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
    // A request or an error is left to its serializer, which scrubs what it keeps.
    if (Object.getPrototypeOf(value) !== Object.prototype) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, depth + 1)]));
  };
  return {
    level: opts.level ?? 'info',
    ...(opts.stream ? { stream: opts.stream } : { stream: process.stderr }),
    redact: { paths: [...kSecretFields, ...kSecretFields.map((f) => `*.${f}`), 'req.headers.cookie', 'headers.cookie'], censor: kRedacted },
    // A message is text like any field: the same values come out of it.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>);
      },
    },
    formatters: {
      level: (label) => ({ level: label }),
      log: (entry) => clean(entry) as Record<string, unknown>,
    },
    serializers: {
      err: (err: Error) => {
        const e = pino.stdSerializers.err(err);
        return { ...e, message: scrub(e.message), stack: scrub(e.stack) };
      },
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: scrub(withoutQueryValues(String(req.url))), remoteAddress: req.ip }),
    },
  };
}

/** `/a?sig=x&exp=1` → `/a?sig&exp`: which parameters came, not their values. */
export function withoutQueryValues(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = new URLSearchParams(url.slice(q + 1)).keys();
  return `${url.slice(0, q)}?${[...names].join('&')}`;
}
