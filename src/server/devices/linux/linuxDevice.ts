// A Linux box as a BoxDevice: its Chromium (LinuxBox) over CDP, and, for a local box, its shell and
// files on this machine as the box's own user. A grid box is the same device with a grid session for
// its browser and neither shell nor files here (its declaration, kinds.ts, says why).
import { BoxflowError } from '../../../errors.js';
import type { Orientation, Resolution, Tab } from '../../../api/schemas.js';
import type { LinuxHeld } from '../held.js';
import { renameInBox } from '../../host/boxFs.js';
import { detectOnLinux } from './elements.js';
import { linuxFs, runCodeLinux } from './files.js';
import { closeTab, linuxContext, linuxDisplay, listTabs, navigateTab, performOnLinux, readClipboard, rotateLinux, switchTab, tallScreenshot, writeClipboard } from './actions.js';
import { boxRoot, runLinuxCommand } from './commands.js';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { startLinuxRecording } from './recording.js';
import { checkOpenUrl } from './urlPolicy.js';
import type { BoxDevice, BrowserFacet, ClipboardFacet, FilesFacet, ShellFacet } from '../device.js';

const round = (n: number) => Math.round(n * 100) / 100;

export class LinuxDevice implements BoxDevice {
  readonly kind: 'local' | 'grid';
  readonly browser: BrowserFacet;
  readonly clipboard: ClipboardFacet;
  readonly shell?: ShellFacet;
  readonly files?: FilesFacet;
  readonly #entry: LinuxHeld;

  constructor(entry: LinuxHeld) {
    this.#entry = entry;
    this.kind = entry.kind;
    const box = () => entry.linux;
    this.browser = {
      open: async (size?: Resolution) => {
        if (size) await box().setResolution(size);
        await box().ensureBrowser();
      },
      close: () => box().closeBrowser(),
      tabs: () => listTabs(box()),
      navigate: async (id, url, signal) => navigateTab(box(), id, await checkOpenUrl(url, entry.dir), signal),
      switchTo: (id) => switchTab(box(), id),
      closeTab: (id) => closeTab(box(), id),
      tallScreenshot: (scale, maxHeight) => tallScreenshot(box(), scale, maxHeight),
      devtools: async () => ({ endpoint: await box().wsEndpoint(), contextId: box().contextId }),
    };
    this.clipboard = { read: () => readClipboard(box()), write: (text) => writeClipboard(box(), text) };
    if (entry.kind === 'local') {
      this.shell = {
        run: (body, signal, output) => runLinuxCommand(entry, body, signal, output),
        runCode: (body, signal, output) => runCodeLinux(entry, body, signal, output),
      };
      this.files = {
        list: (q) => linuxFs.list(entry, q),
        read: (q) => linuxFs.read(entry, q),
        info: (q) => linuxFs.info(entry, q),
        exists: (q) => linuxFs.exists(entry, q),
        remove: (q) => linuxFs.remove(entry, q),
        write: (req) => linuxFs.write(entry, req),
        rename: (body) => renameInBox(entry.dir, entry.record.config.workingDir!, body, entry.user),
        spoolDir: async () => mkdtemp(join(await boxRoot(entry), '.boxflow-upload-')),
      };
    }
  }

  get #box() {
    return this.#entry.linux;
  }

  shots(scale: number) {
    const box = this.#box;
    return {
      capture: () => box.screenshot(scale),
      screen: () => box.screen(scale),
      settle: (maxMs: number, signal: AbortSignal | undefined) => box.settledScreen(scale, maxMs, signal),
    };
  }

  /** A clip (real pixels) must lie on the screen: the page would render what is past its edge. */
  async screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }) {
    const screen = this.#box.resolution;
    if (clip && (clip.x + clip.width > screen.width + 0.5 / scale || clip.y + clip.height > screen.height + 0.5 / scale)) {
      throw new BoxflowError('INVALID_REQUEST', `/clip reaches outside the screen, which is ${round(screen.width * scale)}×${round(screen.height * scale)} at scale ${scale}`);
    }
    return this.#box.screenshot(scale, clip);
  }

  layout() {
    return this.#box.layout();
  }

  async elements() {
    return { ...(await detectOnLinux(this.#box)), by: 'browser' };
  }

  resolveTarget(text: string) {
    return this.#box.resolveTarget(text);
  }

  async display() {
    return linuxDisplay(this.#box);
  }

  /** A failed resize is the request's failure: the answer never says a size the page did not get. */
  setResolution(res: Resolution) {
    return this.#box.setResolution(res);
  }

  async rotate(orientation: Orientation) {
    const { resolution } = await rotateLinux(this.#box, orientation);
    return `rotated the screen to ${orientation} (${resolution.width}×${resolution.height})`;
  }

  record(limits: Parameters<BoxDevice['record']>[0], boxId: string) {
    return startLinuxRecording(this.#box, limits, boxId);
  }

  gestures(scale: number) {
    return linuxContext(this.#box, scale);
  }

  checkGesture(): void {}

  perform(g: Parameters<BoxDevice['perform']>[0], signal?: AbortSignal) {
    return performOnLinux(this.#box, g, signal);
  }

  drag(points: Parameters<BoxDevice['drag']>[0], segmentMs: number[], signal?: AbortSignal) {
    return this.#box.drag(points, segmentMs, signal);
  }

  pressKeys(keys: Parameters<BoxDevice['pressKeys']>[0], combination: boolean, signal?: AbortSignal) {
    return this.#box.pressKeys(keys, combination, signal);
  }

  async type(text: string, opts: { replace: boolean; pressEnter: boolean }, signal?: AbortSignal) {
    const focus = await this.#box.type(text, opts.replace);
    if (opts.pressEnter) await this.#box.pressKeys(['enter'], false, signal);
    return focus === 'none' || focus === 'other' ? 'no editable element has focus' : undefined;
  }

  /** A Linux box has one hardware-like button: back, the active tab's history back (its kind's declaration refuses the others). */
  async pressButtons(buttons: readonly string[]) {
    const page = await this.#box.activePage();
    const cdp = await this.#box.pageCdp();
    let none = 0;
    for (let i = 0; i < buttons.length; i++) {
      const { currentIndex } = await cdp.send<{ currentIndex: number }>('Page.getNavigationHistory');
      if (currentIndex <= 0) none++;
      // 'commit': a same-document (SPA) back fires no load event.
      else await page.goBack({ waitUntil: 'commit', timeout: 10_000 });
    }
    return none ? `the tab had no history to go back to${none < buttons.length ? ` for ${none} of them` : ''}` : undefined;
  }

  async openLink(url: string, signal?: AbortSignal): Promise<Tab> {
    return this.#box.openTab(await checkOpenUrl(url, this.#entry.dir), signal);
  }
}
