// The config's JSON Schema: ajv judges it and the flow schema's `explain` says what is wrong, at
// which nested key, with a did-you-mean, as flow files get it. docs/config.md documents every key.
import type { ValidateFunction } from 'ajv';
import { kDurationPattern } from '../api/duration.js';
import { kPhases } from '../api/schemas.js';
import { sharedAjv } from '../api/validate.js';
import { BoxflowError } from '../errors.js';
import { explain, formatPath } from '../flow/index.js';
import { kUpdateModes } from '../visual/index.js';
import { kVideoModes } from '../runner/video.js';

type JsonSchema = Record<string, unknown>;
const str: JsonSchema = { type: 'string', minLength: 1 };
const duration: JsonSchema = { type: 'string', pattern: kDurationPattern };
const phases: JsonSchema = { type: 'array', items: { type: 'string', enum: [...kPhases] } };
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({ type: 'object', properties, required, additionalProperties: false });

export const configSchema: JsonSchema = obj({
  baseUrl: { ...str, description: 'Box API v1 service (ends in /api/v1).' },
  apiKey: { type: 'string', description: 'TS/JS configs only, read from the environment.' },
  apiKeyEnv: str,
  appBaseUrl: str,
  env: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
  flows: { type: 'array', items: str },
  boxes: {
    anyOf: [
      { type: 'array', items: str },
      obj({ ids: { type: 'array', items: str }, linux: { type: 'integer', minimum: 0 }, android: { type: 'integer', minimum: 0 } }),
    ],
  },
  workers: { type: 'integer', minimum: 1 },
  retries: { type: 'integer', minimum: 0 },
  timeouts: obj({ step: duration, flow: duration, action: duration }),
  screenshots: { anyOf: [{ type: 'boolean' }, phases, obj({ phases, delay: duration })] },
  outputDir: str,
  reporters: {
    type: 'array',
    items: { anyOf: [str, { type: 'array', items: [str, { type: 'object' }], minItems: 1, maxItems: 2 }] },
  },
  webServer: obj({ command: str, url: str, timeout: duration, reuseExistingServer: { type: 'boolean' }, cwd: str }, ['command', 'url']),
  baselines: obj({ pathTemplate: str, update: { type: 'string', enum: [...kUpdateModes] } }),
  video: { type: 'string', enum: [...kVideoModes], description: 'Video of each flow attempt: off, on, retain-on-failure.' },
});

export const kConfigKeys = Object.keys((configSchema as { properties: object }).properties);

let validate: ValidateFunction | undefined;

/** Throws CONFIG_INVALID naming the nested key (`timeouts.stpe`) and the likely intended one. */
export function checkConfig(config: unknown, file: string): void {
  validate ??= sharedAjv().compile(configSchema);
  if (validate(config)) return;
  const found = explain(configSchema, config, [], {})[0];
  const e = validate.errors?.[0];
  const where = found ? formatPath(found.path) : (e?.instancePath ?? '').split('/').slice(1).join('.');
  const message = found?.message ?? e?.message ?? 'is invalid';
  throw new BoxflowError('CONFIG_INVALID', `${file}: ${where ? `${where}: ` : ''}${message}`);
}
