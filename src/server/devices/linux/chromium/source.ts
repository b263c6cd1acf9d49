// Where a Linux box's browser comes from (linuxBox.ts): a Chromium process on this machine, or a
// session of a Selenium Grid (src/server/grid); either is reached through a CdpPipe's endpoints.
import type { Resolution } from '../../../../api/schemas.js';
import { launchChromium, type LaunchIdentity } from './process.js';
import { clearProfile } from './profile.js';

/** A browser a BrowserSource started: its DevTools endpoints (those of a CdpPipe) and its lifetime. */
export interface BrowserHandle {
  devtools: { readonly wsEndpoint: string; pageEndpoint(targetId: string): string };
  /** Resolves once the browser is gone (exited, or its connection lost). */
  exited: Promise<void>;
  /** Ends the browser (idempotent) and resolves once it is gone. */
  kill(): Promise<void>;
  /** Why it went away on its own: `exitedAlone`, or it stopped answering and was killed. */
  goneReason(exitedAlone: boolean): string;
}

/** Where a box's browser comes from: a Chromium on this machine, or a session of a Selenium Grid. */
export interface BrowserSource {
  readonly kind: 'local' | 'grid';
  /** Starts the box's browser process. */
  start(resolution: Resolution): Promise<BrowserHandle>;
  /** After the process ended: removes what it left (a local profile). */
  cleanUp?(): Promise<void>;
  /** Where the browser's downloads go (the box's working dir); a source without one keeps Chromium's default. */
  readonly downloadDir?: string;
}

export interface LocalChromiumOptions {
  executablePath: string;
  userDataDir: string;
  cwd: string;
  /** Chromium's HOME (the box's directory). Default: the folder that holds the profile. */
  home?: string;
  /** @deprecated Ignored: Chromium's environment is fixed (chromiumEnv in process.ts), whatever a box's envs say. */
  env?: NodeJS.ProcessEnv;
  identity?: LaunchIdentity;
}

/** A Chromium process on this machine for each browser of the box, on the box's own profile. */
export function localChromium(opts: LocalChromiumOptions): BrowserSource {
  return {
    kind: 'local',
    downloadDir: opts.cwd,
    async start(resolution) {
      const proc = await launchChromium({ executablePath: opts.executablePath, userDataDir: opts.userDataDir, cwd: opts.cwd, ...(opts.home ? { home: opts.home } : {}), ...resolution, ...(opts.identity ?? {}) });
      return {
        devtools: proc.devtools,
        exited: proc.exited,
        kill: proc.kill,
        goneReason: (exitedAlone) => (exitedAlone ? `Chromium exited (${proc.child.signalCode ?? `exit code ${proc.child.exitCode}`})` : 'Chromium stopped answering over DevTools and was killed'),
      };
    },
    // The profile's contents go with the process (removed as the browser user: the profile is
    // that user's to fill with links); the directory itself stays, with its owner.
    async cleanUp() {
      await clearProfile(opts.userDataDir, opts.identity?.user);
    },
  };
}
