// Steps of the device's state: settings, recording, assertions on it.
import type { JsonSchema, Path } from '../parts.js';
import { baseName, clip, quoted, type LabelCtx } from '../labels.js';
import type { DeviceSettings, GeoPoint, StepBody } from '../types.js';
import { str, runtimeText, isPlainObject, resolveFile, screenshotName, checkName, permissionsSchema } from './args.js';
import type { NormalizeCtx, StepDefs } from './types.js';

const kOrientations = ['portrait', 'landscapeLeft', 'landscapeRight', 'upsideDown'] as const;
const kLatLngPattern = '^\\s*-?\\d+(?:\\.\\d+)?\\s*,\\s*-?\\d+(?:\\.\\d+)?\\s*$';
const degrees = (min: number, max: number): JsonSchema => ({ anyOf: [{ type: 'number', minimum: min, maximum: max }, runtimeText] });
const geoPointSchema: JsonSchema = {
  type: 'object',
  properties: { latitude: degrees(-90, 90), longitude: degrees(-180, 180) },
  required: ['latitude', 'longitude'],
  additionalProperties: false,
};

/** A path point: {latitude, longitude}, "lat,lng", or a ${...} giving "lat,lng" when the step runs. */
function geoPointOf(p: unknown, ctx: NormalizeCtx, rel: Path): GeoPoint {
  if (isPlainObject(p)) return p as unknown as GeoPoint;
  const text = String(p);
  if (text.includes('${')) return { latitude: text, longitude: '' };
  const [lat, lng] = text.split(',').map((x) => Number(x.trim()));
  if (!(Math.abs(lat!) <= 90 && Math.abs(lng!) <= 180)) ctx.fail(rel, `"${text}" is not a place: latitude from -90 to 90, longitude from -180 to 180`);
  return { latitude: lat!, longitude: lng! };
}

const onOff = (v: boolean | 'toggle') => (v === 'toggle' ? 'toggle' : v ? 'on' : 'off');
const geoLabel = (p: GeoPoint, c: LabelCtx) => (p.longitude === '' ? clip(c, String(p.latitude), 40) : `${clip(c, String(p.latitude), 20)},${clip(c, String(p.longitude), 20)}`);

function deviceLabel(s: DeviceSettings, c: LabelCtx): string {
  const parts: string[] = [];
  if (s.airplaneMode !== undefined) parts.push(`airplaneMode ${onOff(s.airplaneMode)}`);
  if (s.location) parts.push('path' in s.location ? `location along ${s.location.path.length} points` : `location ${geoLabel(s.location, c)}`);
  if (s.permissions) parts.push(`permissions ${Object.entries(s.permissions).map(([k, v]) => `${k} ${v}`).join(', ')}${s.appId ? ` of ${clip(c, s.appId, 40)}` : ''}`);
  if (s.orientation !== undefined) parts.push(`orientation ${clip(c, s.orientation, 20)}`);
  if (s.darkMode !== undefined) parts.push(`darkMode ${onOff(s.darkMode)}`);
  if (s.clipboard !== undefined) parts.push(`clipboard ${quoted(c, s.clipboard, 20)}`);
  if (s.media) parts.push(`media ${s.media.map((f) => baseName(c, f)).join(', ')}${s.album !== undefined ? ` to ${clip(c, s.album, 30)}` : ''}`);
  if (s.clearKeychain) parts.push('clearKeychain');
  return parts.join(', ');
}

export const deviceSteps = {
  setDevice: {
    description:
      'Set the device\'s state: `airplaneMode` (true, false or toggle; Linux boxes: the browser offline), `location` (latitude and longitude, ' +
      'or a `path` of "lat,lng" points travelled at `speed` m/s), `permissions` of `appId` (default the flow\'s app; allow, deny or unset; ' +
      '`all`: every permission the app asks for; Linux boxes: the site\'s), `orientation`, `darkMode` (true, false or toggle), `clipboard` ' +
      '(the text pasteText types, also put on the box\'s clipboard where the service has one: boxflow serve\'s Linux boxes), `media` (photos and videos added to the gallery\'s `album`, Android). Android boxes: device commands; Linux boxes: the browser\'s emulation. ' +
      'What a box cannot do fails when it runs, saying why.',
    example: '- setDevice: { location: { latitude: 52.52, longitude: 13.405 } }',
    label: (s, c) => `setDevice ${deviceLabel(s, c)}`,
    arg: {
      type: 'object',
      title: '{airplaneMode, location, permissions, appId, orientation, darkMode, clipboard, media, album, clearKeychain}',
      properties: {
        airplaneMode: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['toggle'] }], description: 'true, false or toggle.' },
        location: {
          title: '{latitude, longitude} or {path, speed}',
          anyOf: [
            geoPointSchema,
            {
              type: 'object',
              properties: {
                path: { type: 'array', items: { anyOf: [geoPointSchema, { type: 'string', pattern: kLatLngPattern }, runtimeText] }, minItems: 1, description: 'Points, each {latitude, longitude} or "lat,lng".' },
                speed: { type: 'number', exclusiveMinimum: 0, description: 'Metres per second (default 4).' },
              },
              required: ['path'],
              additionalProperties: false,
            },
          ],
        },
        permissions: permissionsSchema,
        appId: str('The app whose permissions are set (default: the flow\'s appId; Linux boxes: the site).'),
        orientation: { anyOf: [{ type: 'string', enum: [...kOrientations] }, runtimeText], description: 'portrait, landscapeLeft, landscapeRight or upsideDown.' },
        darkMode: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['toggle'] }], description: 'true, false or toggle.' },
        clipboard: { type: 'string', description: 'The text pasteText types and ${maestro.copiedText} reads, also put on the box\'s clipboard where it has one.' },
        media: { type: 'array', items: str('Path relative to this flow file.'), minItems: 1, description: 'Photos and videos added to the gallery (Android boxes; Linux boxes have none).' },
        album: str('The gallery album media go to (default boxflow).'),
        clearKeychain: { type: 'boolean', description: 'iOS-only: noted in the report, nothing done.' },
      },
      minProperties: 1,
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      const body: StepBody & { kind: 'setDevice' } = { kind: 'setDevice' };
      if (a.airplaneMode !== undefined) body.airplaneMode = a.airplaneMode;
      if (a.location !== undefined) {
        if (a.location.path === undefined) body.location = a.location as GeoPoint;
        else body.location = { path: (a.location.path as unknown[]).map((p, i) => geoPointOf(p, ctx, ['location', 'path', i])), speed: a.location.speed ?? 4 };
      }
      if (a.permissions !== undefined) body.permissions = a.permissions;
      if (a.appId !== undefined) body.appId = a.appId;
      if (a.appId !== undefined && a.permissions === undefined) ctx.fail(['appId'], 'appId names the app whose permissions are set: give permissions too', { atKey: true });
      if (a.orientation !== undefined) body.orientation = a.orientation;
      if (a.darkMode !== undefined) body.darkMode = a.darkMode;
      if (a.clipboard !== undefined) body.clipboard = a.clipboard;
      if (a.media !== undefined) body.media = (a.media as string[]).map((f) => resolveFile(f, ctx));
      if (a.album !== undefined) body.album = a.album;
      if (a.album !== undefined && a.media === undefined) ctx.fail(['album'], 'album names where media go: give media too', { atKey: true });
      if (a.clearKeychain !== undefined) body.clearKeychain = a.clearKeychain;
      return body;
    },
  },
  record: {
    description:
      'Record the box\'s screen from `record: {start: name}` (or `start`) to `record: stop`, which attaches the video to the report ' +
      '(Maestro\'s startRecording/stopRecording; the GBOX recording endpoints). With the config\'s `video` on, the attempt is recorded already: both steps say so and do nothing.',
    example: '- record: { start: checkout }',
    label: (s, c) => (s.action === 'start' ? `record start${s.name !== undefined ? ` ${c.mask(s.name)}` : ''}` : 'record stop'),
    arg: {
      title: 'start, stop or {start: name}',
      anyOf: [{ type: 'string', enum: ['start', 'stop'] }, { type: 'object', properties: { start: screenshotName }, required: ['start'], additionalProperties: false }],
    },
    normalize: (a, ctx) => (typeof a === 'string' ? { kind: 'record', action: a as 'start' | 'stop' } : { kind: 'record', action: 'start', name: checkName(a.start, ctx, ['start']) }),
  },
  assertDevice: {
    description: 'Fail unless the device is in this state: `darkMode` (Android boxes: the system\'s night mode; Linux boxes: the page\'s prefers-color-scheme), `airplaneMode`.',
    example: '- assertDevice: { darkMode: true }',
    label: (s) => `assertDevice ${[s.darkMode !== undefined ? `darkMode ${s.darkMode ? 'on' : 'off'}` : '', s.airplaneMode !== undefined ? `airplaneMode ${s.airplaneMode ? 'on' : 'off'}` : ''].filter(Boolean).join(', ')}`,
    arg: {
      type: 'object',
      title: '{darkMode, airplaneMode}',
      properties: { darkMode: { type: 'boolean' }, airplaneMode: { type: 'boolean' } },
      minProperties: 1,
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'assertDevice', ...a }),
  },
} satisfies StepDefs;
