// What each kind of box cannot do, declared once (device.ts): the facets it lacks and the requests
// it refuses by what they ask, each with the code and reason its answer gives. A leaf of the server:
// it imports only the API's names and device.ts's types.
import type { BodyRefusal, DeviceKind, KindDeclaration, Refusal } from './device.js';

const field = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

/** A file: URL names a file on the box's own machine. */
function opensFile(body: unknown): boolean {
  const url = field(body, 'url');
  return typeof url === 'string' && URL.canParse(url) && new URL(url).protocol === 'file:';
}

/** A box's environment and working dir are made on its own machine. */
function setsMachine(body: unknown): boolean {
  const config = field(body, 'config');
  const envs = field(config, 'envs');
  return (typeof envs === 'object' && envs !== null && Object.keys(envs).length > 0) || field(config, 'workingDir') !== undefined;
}

const kNotAndroid: Refusal = { code: 'UNSUPPORTED_BOX_TYPE', reason: "apps, packages and the gallery are an Android device's; this box is a linux box" };

/** Linux boxes (local and grid) have one hardware-like button: back, the tab's history back. */
const kLinuxButtons: BodyRefusal = {
  code: 'UNSUPPORTED_BOX_TYPE',
  reason: 'a Linux box has one button, back (the tab\'s history back); home, menu and the others are an Android device\'s',
  when: (body) => {
    const buttons = field(body, 'buttons');
    return Array.isArray(buttons) && buttons.some((b) => b !== 'back');
  },
  only: 'buttons other than `back`',
};

const kLinuxAlbum: BodyRefusal = {
  code: 'UNPROCESSABLE',
  reason: 'boxflow serve keeps no screenshot album on Linux boxes (/saveToAlbum); store the image with outputFormat: storageKey instead',
  when: (body) => field(body, 'saveToAlbum') === true,
  only: '`saveToAlbum`',
};

/** A Linux box with Chromium under its own uids, its files and shell on this machine. */
export const kLocalKind: KindDeclaration = {
  kind: 'local',
  lacks: { apps: kNotAndroid },
  refuses: { pressButton: kLinuxButtons, screenshot: kLinuxAlbum },
};

/** What a grid box answers: its browser runs on a Selenium Grid node that this server reaches only through WebDriver and DevTools. */
const grid = (lacks: string): Refusal => ({ code: 'GRID_UNSUPPORTED', reason: `a grid box's browser runs on a Selenium Grid node, so it has no ${lacks} on this server; create a box on a server without --grid for that` });
const kFileUrl: BodyRefusal = { ...grid('files (file: URLs)'), when: opensFile, only: 'a `file:` URL' };

/**
 * A Linux box whose browser is a Selenium Grid session: whatever needs the box's own machine (a
 * shell, files, a terminal, an environment, a working dir) is not there. docs/scaling.md,
 * docs/errors.md and src/errors.ts name every endpoint it refuses (test/unit/gridRefusals.test.ts).
 */
export const kGridKind: KindDeclaration = {
  kind: 'grid',
  lacks: { apps: kNotAndroid, shell: grid('shell (commands, run-code, the command websocket, the web terminal)'), files: grid('files (fs endpoints)') },
  refuses: {
    pressButton: kLinuxButtons,
    screenshot: kLinuxAlbum,
    openTab: kFileUrl,
    updateTab: kFileUrl,
    createLinuxBox: { ...grid('environment or working dir (/config/envs, /config/workingDir)'), when: setsMachine, only: '`config.envs` or `config.workingDir`' },
  },
};

/** A device over adb: no browser of boxflow's (a link opens in the app that claims it) and no clipboard command. */
export const kAndroidKind: KindDeclaration = {
  kind: 'android',
  lacks: {
    browser: { code: 'UNSUPPORTED_BOX_TYPE', reason: "an Android box has no browser of boxflow's to drive; POST /boxes/{boxId}/browser/tabs opens a link in the app that claims it" },
    clipboard: { code: 'UNPROCESSABLE', reason: 'the clipboard is not offered on Android boxes by boxflow serve: Android has no stock shell command for it (only helper apps set it)' },
  },
  refuses: {
    screenshot: { code: 'UNPROCESSABLE', reason: '/scrollCapture is not offered on Android boxes: it would need swipes and stitching', when: (body) => field(body, 'scrollCapture') !== undefined, only: '`scrollCapture`' },
  },
};

export const kKinds: Readonly<Record<DeviceKind, KindDeclaration>> = { local: kLocalKind, grid: kGridKind, android: kAndroidKind };
