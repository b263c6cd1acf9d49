// Steps of the app under test: launch, stop, clear, navigate, its text fields and its scripts.
import { ref, type JsonSchema } from '../parts.js';
import { baseName, clip, selectorLabel } from '../labels.js';
import type { PermissionValue, StepBody } from '../types.js';
import { noArg, str, isPlainObject, checkSelector, resolveFile, envValues, permissionsSchema } from './args.js';
import type { StepDefs } from './types.js';

export const kRandomKinds = ['text', 'number', 'email', 'personName', 'cityName', 'countryName', 'colorName'] as const;
type RandomKind = (typeof kRandomKinds)[number];
const appIdArg: JsonSchema = {
  title: 'empty (the flow\'s appId), an app id or {appId}',
  anyOf: [{ type: 'null' }, str('Android package.'), { type: 'object', properties: { appId: str('Android package.') }, additionalProperties: false }],
};
const appIdOf = (a: unknown): { appId?: string } => {
  const id = typeof a === 'string' ? a : isPlainObject(a) ? (a.appId as string | undefined) : undefined;
  return id === undefined ? {} : { appId: id };
};

export const appSteps = {
  launchApp: {
    description:
      'Start the app (Android: `appId`, default the flow\'s appId; Linux boxes: open `appId` if it is a URL, else the flow\'s appId URL, else appBaseUrl). ' +
      '`stopApp` (default true) stops it first, `clearState` clears its data first; `arguments` are launch arguments ' +
      '(Android: string extras of the launch intent; Linux boxes: query parameters added to the URL).',
    example: '- launchApp: { appId: com.example.app, clearState: true }',
    label: (s, c) => (s.appId !== undefined ? `launchApp ${clip(c, s.appId, 60)}` : 'launchApp'),
    ts: { method: 'launchApp', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty, an app id, or {appId, clearState, stopApp, arguments}',
      anyOf: [
        { type: 'null' },
        str('Android package, or on a Linux box a URL.'),
        {
          type: 'object',
          properties: {
            appId: str('Android package, or on a Linux box a URL (default: the flow\'s appId).'),
            clearState: { type: 'boolean', description: 'Clear the app\'s data (Linux boxes: cookies and storage) first (default false).' },
            stopApp: { type: 'boolean', description: 'Stop the app (Linux boxes: close the browser) first (default true).' },
            arguments: {
              type: 'object',
              description: 'Launch arguments: Android string extras of the launch intent; Linux boxes: query parameters of the URL.',
              additionalProperties: { type: ['string', 'number', 'boolean'] },
            },
            permissions: { ...permissionsSchema, description: 'Permissions set before the app starts, as setDevice sets them.' },
            clearKeychain: { type: 'boolean', description: 'iOS-only: noted in the report, nothing done (as Maestro on Android and the web).' },
          },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => {
      if (a === null || typeof a === 'string') return { kind: 'launchApp', stopApp: true, ...(a ? { appId: a } : {}) };
      const body: StepBody & { kind: 'launchApp' } = { kind: 'launchApp', stopApp: a.stopApp ?? true };
      if (a.appId !== undefined) body.appId = a.appId;
      if (a.clearState !== undefined) body.clearState = a.clearState;
      if (a.arguments !== undefined) body.arguments = envValues(a.arguments);
      if (a.permissions !== undefined) body.permissions = a.permissions as Record<string, PermissionValue>;
      if (a.clearKeychain !== undefined) body.clearKeychain = a.clearKeychain;
      return body;
    },
  },
  stopApp: {
    description:
      'Stop the app (Android: force-stop `appId`, default the flow\'s appId; Linux boxes: close the browser). `processDeath: true` ' +
      '(Android): kill its process as the system kills a background app (`am kill`), its saved state kept (Maestro\'s killApp).',
    example: '- stopApp',
    label: (s, c) => `${s.appId !== undefined ? `stopApp ${clip(c, s.appId, 60)}` : 'stopApp'}${s.processDeath ? ' (process death)' : ''}`,
    ts: { method: 'stopApp', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty (the flow\'s appId), an app id or {appId, processDeath}',
      anyOf: [
        { type: 'null' },
        str('Android package.'),
        {
          type: 'object',
          properties: { appId: str('Android package.'), processDeath: { type: 'boolean', description: 'Android: `am kill` instead of force-stop (Linux boxes: the same as stopApp).' } },
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) => ({ kind: 'stopApp', ...appIdOf(a), ...(isPlainObject(a) && a.processDeath ? { processDeath: true } : {}) }),
  },
  clearState: {
    description: 'Clear the app\'s data (Android: `pm clear` of `appId`, default the flow\'s appId; Linux boxes: cookies, local and session storage of the active tab\'s site).',
    example: '- clearState',
    label: (s, c) => (s.appId !== undefined ? `clearState ${clip(c, s.appId, 60)}` : 'clearState'),
    ts: { method: 'clearState', arg: 'optional' },
    bare: true,
    arg: appIdArg,
    normalize: (a) => ({ kind: 'clearState', ...appIdOf(a) }),
  },
  back: {
    description: 'Press the back button (Android: hardware back; Linux boxes: the tab\'s history back).',
    example: '- back',
    label: () => 'back',
    ts: { method: 'back', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'back' }),
  },
  home: {
    description: 'Press the home button (Android only: a Linux box has no home button).',
    example: '- home',
    label: () => 'home',
    ts: { method: 'home', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'home' }),
  },
  hideKeyboard: {
    description: 'Close the on-screen keyboard (Linux boxes: take the focus off the focused field, so the page sees blur).',
    example: '- hideKeyboard',
    label: () => 'hideKeyboard',
    ts: { method: 'hideKeyboard', arg: 'none' },
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'hideKeyboard' }),
  },
  eraseText: {
    description: 'Erase characters before the cursor of the focused field: a number of them, or (bare) the whole field.',
    example: '- eraseText: 3',
    label: (s) => (s.chars !== undefined ? `eraseText ${s.chars}` : 'eraseText all'),
    ts: { method: 'eraseText', arg: 'optional' },
    bare: true,
    arg: {
      title: 'empty (the whole field) or a number of characters',
      anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1, maximum: 1000, description: 'Characters to erase.' }],
    },
    normalize: (a) => (a === null ? { kind: 'eraseText' } : { kind: 'eraseText', chars: a }),
  },
  openLink: {
    description:
      'Open a link (Linux boxes: in a new tab; a path is relative to appBaseUrl). Android: `browser` opens it in the browser (Chrome, else Firefox) ' +
      'rather than the app that claims it; `autoVerify` then answers the "open with" chooser for the flow\'s app and Chrome\'s first-run screens, where they show.',
    example: '- openLink: https://example.com/welcome',
    label: (s, c) => `openLink ${clip(c, s.link, 80)}${s.browser ? ' in the browser' : ''}${s.autoVerify ? ' (auto-verify)' : ''}`,
    ts: { method: 'openLink' },
    arg: {
      title: 'a URL or {link, browser, autoVerify}',
      anyOf: [
        str('Absolute URL, or a path relative to appBaseUrl.'),
        {
          type: 'object',
          properties: {
            link: str(),
            browser: { type: 'boolean', description: 'Android: open it in the browser (default false).' },
            autoVerify: { type: 'boolean', description: 'Android: answer the chooser for the flow\'s app, and Chrome\'s first-run screens (default false).' },
          },
          required: ['link'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a) =>
      typeof a === 'string'
        ? { kind: 'openLink', link: a }
        : { kind: 'openLink', link: a.link, ...(a.browser ? { browser: true } : {}), ...(a.autoVerify ? { autoVerify: true } : {}) },
  },
  waitForAnimationToEnd: {
    description: 'Wait until the screen stops changing: two screenshots in a row are the same (within the step timeout).',
    example: '- waitForAnimationToEnd',
    label: () => 'waitForAnimationToEnd',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'waitForAnimationToEnd' }),
  },
  copyTextFrom: {
    description: 'Remember the text of the element the selector finds, for pasteText and ${maestro.copiedText}.',
    example: '- copyTextFrom: { id: order-number }',
    label: (s, c) => `copyTextFrom ${selectorLabel(s.selector, c)}`,
    arg: ref('selector'),
    normalize: (a, ctx) => ({ kind: 'copyTextFrom', selector: checkSelector(a, ctx, []) }),
  },
  pasteText: {
    description: 'Type the text the last copyTextFrom remembered into the focused field.',
    example: '- pasteText',
    label: () => 'pasteText',
    bare: true,
    arg: noArg,
    normalize: () => ({ kind: 'pasteText' }),
  },
  inputRandom: {
    description: 'Type random text into the focused field: text, number, email, personName, cityName, countryName or colorName (`length` for text and number, default 8).',
    example: '- inputRandom: email',
    label: (s) => `inputRandom ${s.type}${s.length !== undefined ? ` (length ${s.length})` : ''}`,
    arg: {
      title: 'a kind or {type, length}',
      anyOf: [
        { type: 'string', enum: [...kRandomKinds] },
        {
          type: 'object',
          properties: { type: { type: 'string', enum: [...kRandomKinds] }, length: { type: 'integer', minimum: 1, maximum: 1000 } },
          required: ['type'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'inputRandom', type: a as RandomKind };
      if (a.length !== undefined && a.type !== 'text' && a.type !== 'number') ctx.fail(['length'], `length applies to text and number, not ${a.type}`, { atKey: true });
      return { kind: 'inputRandom', type: a.type, ...(a.length !== undefined ? { length: a.length } : {}) };
    },
  },
  assertTrue: {
    description: 'Fail unless the condition, after ${...} is evaluated, is true: blank, "false", "undefined", "null" and 0 are false.',
    example: '- assertTrue: ${output.count > 2}',
    label: (s, c) => `assertTrue ${clip(c, s.condition, 60)}`,
    arg: { type: ['string', 'number', 'boolean'], description: 'Usually one ${JavaScript expression}.' },
    normalize: (a) => ({ kind: 'assertTrue', condition: String(a) }),
  },
  evalScript: {
    description: 'Run JavaScript in the flow\'s sandbox (`output` is shared by the whole flow, variables are globals, 10s limit). `${expr}` alone is the same as `expr`.',
    example: '- evalScript: output.total = Number(PRICE) * 2',
    label: (s, c) => `evalScript ${clip(c, s.script.replace(/\s+/g, ' '), 60)}`,
    arg: str('JavaScript.'),
    normalize: (a) => ({ kind: 'evalScript', script: a }),
  },
  runScript: {
    description: 'Run a JavaScript file (relative to this flow file) in the flow\'s sandbox; `env` adds variables for that script only.',
    example: '- runScript: { file: scripts/setup.js, env: { USER: bob } }',
    label: (s, c) => `runScript ${baseName(c, s.file)}`,
    arg: {
      title: 'a file or {file, env}',
      anyOf: [str('Script file, relative to this file.'), {
        type: 'object',
        properties: { file: str('Script file, relative to this file.'), env: ref('env') },
        required: ['file'],
        additionalProperties: false,
      }],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'runScript', file: resolveFile(a, ctx) };
      const body: StepBody & { kind: 'runScript' } = { kind: 'runScript', file: resolveFile(a.file, ctx) };
      if (a.env !== undefined) body.env = envValues(a.env);
      return body;
    },
  },
} satisfies StepDefs;
