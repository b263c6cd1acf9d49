// Steps that act on the screen and the box: taps, swipes, keys, typing, tabs, files and commands.
import { parseDuration } from '../../api/duration.js';
import type { KeyName } from '../../api/schemas.js';
import { duration, kDirections, kKeyComboPattern, kSelectorProps, ref } from '../parts.js';
import { clip, quoted, selectorLabel, targetLabel } from '../labels.js';
import type { StepBody } from '../types.js';
import { noArg, str, ms, isPlainObject, checkSelector, checkRegex, pickSelector, toTarget, elementTarget, kDirection } from './args.js';
import type { StepDefs } from './types.js';

type Direction = (typeof kDirections)[number];

const toPoint = (v: unknown): { x: number; y: number } =>
  Array.isArray(v) ? { x: v[0] as number, y: v[1] as number } : { x: (v as { x: number }).x, y: (v as { y: number }).y };

export const actionsSteps = {
  tap: {
    description: 'Tap an element, a point or a natural-language target.',
    example: '- tap: Login',
    label: (s, c) => `tap ${targetLabel(s.target, c)}`,
    ts: { method: 'tap' },
    arg: elementTarget(),
    normalize: (a, ctx) => ({ kind: 'tap', target: toTarget(a, ctx) }),
  },
  longPress: {
    description: 'Press and hold (default 1s). Map forms may add `duration`.',
    example: '- longPress: { text: Photo, duration: 2s }',
    label: (s, c) => `longPress ${targetLabel(s.target, c)}${s.duration !== 1000 ? ` ${s.duration} ms` : ''}`,
    ts: { method: 'longPress', argKeys: ['duration'], stringKey: 'text' },
    arg: elementTarget({ duration: duration('How long to hold (default 1s).') }),
    normalize: (a, ctx) => ({
      kind: 'longPress',
      target: toTarget(a, ctx),
      duration: (isPlainObject(a) ? ms(a.duration as string | undefined) : undefined) ?? 1000,
    }),
  },
  swipe: {
    description:
      'Swipe up/down/left/right across the middle 60% of the screen (or of `on`), from one target to another, ' +
      'or from a target in a direction to near the screen\'s edge (Linux boxes: the mouse wheel over the target).',
    example: '- swipe: up',
    label: (s, c) =>
      s.direction
        ? `swipe ${s.direction}${s.on ? ` on ${selectorLabel(s.on, c)}` : ''}${s.from ? ` from ${targetLabel(s.from, c)}` : ''}`
        : `swipe ${s.from ? targetLabel(s.from, c) : '?'} → ${s.to ? targetLabel(s.to, c) : '?'}`,
    ts: { method: 'swipe' },
    arg: {
      title: 'a direction, {from, to, duration}, {direction, on, duration} or {from, direction, duration}',
      anyOf: [
        kDirection,
        {
          type: 'object',
          properties: { from: elementTarget(), to: elementTarget(), duration: duration('Whole move, e.g. 300ms.') },
          required: ['from', 'to'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { direction: kDirection, on: ref('selector'), duration: duration('Whole move, e.g. 300ms.') },
          required: ['direction'],
          additionalProperties: false,
        },
        {
          type: 'object',
          description: 'From the target (an element\'s centre, or `point` inside it) in the direction, to 10% of the screen from its edge.',
          properties: { from: elementTarget(), direction: kDirection, duration: duration('Whole move, e.g. 300ms.') },
          required: ['from', 'direction'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'swipe', direction: a as Direction };
      const body: StepBody & { kind: 'swipe' } = { kind: 'swipe' };
      if (a.direction !== undefined) body.direction = a.direction;
      if (a.on !== undefined) body.on = checkSelector(a.on, ctx, ['on']);
      if (a.from !== undefined) body.from = toTarget(a.from, ctx, ['from']);
      if (a.to !== undefined) body.to = toTarget(a.to, ctx, ['to']);
      if (a.duration !== undefined) body.duration = parseDuration(a.duration);
      return body;
    },
  },
  drag: {
    description: 'Drag from one target to another, or along a path of points.',
    example: '- drag: { from: { text: Card }, to: "50%,20%", duration: 1s }',
    label: (s, c) => (s.path ? `drag along ${s.path.length} points` : `drag ${s.from ? targetLabel(s.from, c) : '?'} → ${s.to ? targetLabel(s.to, c) : '?'}`),
    ts: { method: 'drag' },
    arg: {
      title: '{from, to, duration} or {path, interval}',
      anyOf: [
        {
          type: 'object',
          properties: { from: ref('target'), to: ref('target'), duration: duration('Whole move (default 500ms).') },
          required: ['from', 'to'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            path: { type: 'array', items: ref('pathPoint'), minItems: 2, description: 'Points in pixels.' },
            interval: duration('Time between two points (default 50ms).'),
          },
          required: ['path'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (a.path !== undefined) {
        const body: StepBody & { kind: 'drag' } = { kind: 'drag', path: (a.path as unknown[]).map(toPoint) };
        if (a.interval !== undefined) body.interval = parseDuration(a.interval);
        return body;
      }
      const body: StepBody & { kind: 'drag' } = { kind: 'drag', from: toTarget(a.from, ctx, ['from']), to: toTarget(a.to, ctx, ['to']) };
      if (a.duration !== undefined) body.duration = parseDuration(a.duration);
      return body;
    },
  },
  scrollUntilVisible: {
    description: 'Swipe until the selector is visible (direction default down, at most maxSwipes, default 10).',
    example: '- scrollUntilVisible: { text: Settings, direction: down, maxSwipes: 5 }',
    label: (s, c) => `scrollUntilVisible ${selectorLabel(s.selector, c)} (${s.direction}${s.center ? ', centred' : ''})`,
    arg: {
      title: 'a selector, or selector keys with direction and maxSwipes',
      anyOf: [
        { type: 'string', minLength: 1 },
        {
          type: 'object',
          properties: {
            ...kSelectorProps,
            direction: { ...kDirection, description: 'Direction of the swipe (default down).' },
            maxSwipes: { type: 'integer', minimum: 1, maximum: 100, description: 'Default 10.' },
            center: { type: 'boolean', description: 'Once visible, swipe on (at most 4 more) until the element is past the middle of the screen (Maestro\'s centerElement).' },
          },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => ({
      kind: 'scrollUntilVisible',
      selector: typeof a === 'string' ? checkSelector(a, ctx, []) : pickSelector(a, ctx),
      direction: (typeof a === 'string' ? undefined : a.direction) ?? 'down',
      maxSwipes: (typeof a === 'string' ? undefined : a.maxSwipes) ?? 10,
      ...(typeof a !== 'string' && a.center ? { center: true } : {}),
    }),
  },
  pressKey: {
    description: 'Press keys: one name, names joined by + (held together), a list (one after another) or {keys, combination}.',
    example: '- pressKey: control+a',
    label: (s) => (s.keyCode !== undefined ? `pressKey keyCode ${s.keyCode}` : `pressKey ${s.keys.join(s.combination ? '+' : ', ')}`),
    ts: { method: 'pressKey' },
    arg: {
      title: 'a key name, keys joined by +, a list of key names or {keys, combination}',
      anyOf: [
        { type: 'string', pattern: kKeyComboPattern },
        { type: 'array', items: ref('keyName'), minItems: 1 },
        {
          type: 'object',
          properties: {
            keys: { type: 'array', items: ref('keyName'), minItems: 1 },
            combination: { type: 'boolean', description: 'true: hold all keys together (default false).' },
          },
          required: ['keys'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { keyCode: { type: 'integer', minimum: 0, maximum: 400, description: 'An Android KEYCODE (KeyEvent.java), e.g. 23 for DPAD_CENTER (Android boxes).' } },
          required: ['keyCode'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (typeof a === 'string') {
        const keys = a.split('+') as KeyName[];
        return { kind: 'pressKey', keys, combination: keys.length > 1 };
      }
      if (Array.isArray(a)) return { kind: 'pressKey', keys: a as KeyName[], combination: false };
      if (a.keyCode !== undefined) return { kind: 'pressKey', keys: [], combination: false, keyCode: a.keyCode };
      return { kind: 'pressKey', keys: a.keys as KeyName[], combination: a.combination ?? false };
    },
  },
  type: {
    description: 'Type text into the focused field.',
    example: '- type: { text: "${USER}", pressEnter: true }',
    label: (s, c) => `type ${quoted(c, s.text, 12)}${s.pressEnter ? ' ⏎' : ''}`,
    ts: { method: 'type' },
    arg: {
      title: 'a string or {text, mode, pressEnter}',
      anyOf: [
        { type: 'string' },
        {
          type: 'object',
          properties: {
            text: { type: 'string' },
            mode: { type: 'string', enum: ['append', 'replace'], description: 'append (default) or replace the field content.' },
            pressEnter: { type: 'boolean' },
          },
          required: ['text'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (typeof a === 'string') return { kind: 'type', text: a };
      const body: StepBody & { kind: 'type' } = { kind: 'type', text: a.text };
      if (a.mode !== undefined) body.mode = a.mode;
      if (a.pressEnter !== undefined) body.pressEnter = a.pressEnter;
      return body;
    },
  },
  setScale: {
    description: 'Set the action scale (0.1 to 1); later steps convert coordinates by it.',
    example: '- setScale: 0.5',
    label: (s) => `setScale ${s.scale}`,
    ts: { method: 'setScale' },
    arg: { type: 'number', minimum: 0.1, maximum: 1 },
    normalize: (a) => ({ kind: 'setScale', scale: a }),
  },
  setResolution: {
    description: 'Set the screen resolution in pixels.',
    example: '- setResolution: { width: 1280, height: 800 }',
    label: (s) => `setResolution ${s.width}×${s.height}`,
    ts: { method: 'setResolution' },
    arg: {
      type: 'object',
      properties: { width: { type: 'integer', minimum: 1 }, height: { type: 'integer', minimum: 1 } },
      required: ['width', 'height'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'setResolution', width: a.width, height: a.height }),
  },
  openTab: {
    description: 'Open a browser tab (Linux boxes), optionally checking its title / URL. A path (/login) is relative to the config\'s appBaseUrl.',
    example: '- openTab: http://127.0.0.1:4173/login',
    label: (s, c) => `openTab ${clip(c, s.url, 80)}`,
    ts: { method: 'openTab' },
    arg: {
      title: 'a URL or {url, expect}',
      anyOf: [str('Absolute URL, or a path relative to appBaseUrl.'), {
        type: 'object',
        properties: {
          url: str('Absolute URL, or a path relative to appBaseUrl.'),
          expect: {
            type: 'object',
            properties: { title: { type: 'string' }, url: { type: 'string' } },
            additionalProperties: false,
            minProperties: 1,
          },
        },
        required: ['url'],
        additionalProperties: false,
      }],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'openTab', url: a };
      for (const k of ['title', 'url'] as const) if (a.expect?.[k] !== undefined) checkRegex(a.expect[k], ctx, ['expect', k]);
      return { kind: 'openTab', ...a };
    },
  },
  closeBrowser: {
    description: 'Close the box browser (Linux boxes).',
    example: '- closeBrowser',
    label: () => 'closeBrowser',
    ts: { method: 'closeBrowser', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'closeBrowser' }),
  },
  runCommand: {
    description:
      'Run a shell command in the box (Linux boxes: `sh -c` as the box\'s own user, without network; Android: `adb shell`), e.g. to seed data ' +
      'before the steps or clean up in onFinish. Its output is attached to the step; an exit code other than `expectExit` (default 0) fails it. ' +
      'The step\'s `timeout` bounds the command (default 30s).',
    example: '- runCommand: { command: "rm -f downloads/*", expectExit: 0 }',
    label: (s, c) => `runCommand ${quoted(c, s.command, 60)}`,
    ts: { method: 'runCommand', argKeys: ['workingDir', 'expectExit'], stringKey: 'command' },
    arg: {
      title: 'a command, or {command, workingDir, expectExit}',
      anyOf: [
        str('The command, run by sh -c.'),
        {
          type: 'object',
          properties: {
            command: str('The command, run by sh -c.'),
            workingDir: str('Where it runs (a box path; default the box\'s working dir).'),
            expectExit: { type: 'integer', minimum: 0, maximum: 255, description: 'The exit code that passes (default 0).' },
          },
          required: ['command'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) =>
      typeof a === 'string'
        ? { kind: 'runCommand', command: a }
        : { kind: 'runCommand', command: a.command, ...(a.workingDir ? { workingDir: a.workingDir } : {}), ...(a.expectExit !== undefined ? { expectExit: a.expectExit } : {}) },
  },
  renameFile: {
    description: 'Rename a file in the box file system.',
    example: '- renameFile: { from: a.txt, to: b.txt, workingDir: /tmp }',
    label: (s, c) => `renameFile ${c.mask(s.from)} → ${c.mask(s.to)}`,
    arg: {
      type: 'object',
      properties: { from: str(), to: str(), workingDir: str() },
      required: ['from', 'to'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'renameFile', ...a }),
  },
  deleteMedia: {
    description: 'Delete one media item from an album.',
    example: '- deleteMedia: { album: Camera, media: photo.png }',
    label: (s, c) => `deleteMedia ${c.mask(s.album)}/${c.mask(s.media)}`,
    arg: {
      type: 'object',
      properties: { album: str(), media: str() },
      required: ['album', 'media'],
      additionalProperties: false,
    },
    normalize: (a) => ({ kind: 'deleteMedia', album: a.album, media: a.media }),
  },
  deleteAlbum: {
    description: 'Delete a media album.',
    example: '- deleteAlbum: Camera',
    label: (s, c) => `deleteAlbum ${c.mask(s.album)}`,
    arg: {
      title: 'an album name or {album}',
      anyOf: [str('Album name.'), { type: 'object', properties: { album: str() }, required: ['album'], additionalProperties: false }],
    },
    normalize: (a) => ({ kind: 'deleteAlbum', album: typeof a === 'string' ? a : a.album }),
  },
  webTerminal: {
    description: 'Record a pre-signed web-terminal URL in the report.',
    example: '- webTerminal',
    label: () => 'webTerminal',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'webTerminal' }),
  },
  cdpUrl: {
    description: 'Record a pre-signed CDP URL in the report.',
    example: '- cdpUrl',
    label: () => 'cdpUrl',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'cdpUrl' }),
  },
  sleep: {
    description: 'Wait a fixed time (prefer assertVisible, which polls).',
    example: '- sleep: 500ms',
    label: (s) => `sleep ${s.ms} ms`,
    ts: { method: 'sleep' },
    arg: duration('e.g. 500ms, 2s'),
    normalize: (a) => ({ kind: 'sleep', ms: parseDuration(a) }),
  },
} satisfies StepDefs;
