// What the runner needs, fully resolved (the CLI decides precedence in one place: cli/config.ts).
import type { Phase } from '../api/schemas.js';
import type { UpdateMode } from '../visual/index.js';

export type UpdateBaselines = UpdateMode;

export interface RunOptions {
  rootDir: string;
  /** Variables every flow sees (config `env`); a flow's own env: wins. */
  env?: Record<string, string>;
  /** Relative openTab URLs resolve against it (config appBaseUrl, else webServer.url). */
  appBaseUrl?: string;
  outputDir: string;
  workers: number;
  retries: number;
  shard?: { index: number; total: number };
  grep?: RegExp;
  tags: string[];
  /** ms */
  stepTimeout: number;
  /** ms; per flow attempt. */
  flowTimeout: number;
  /** ms; an HTTP request's own timeout for actions. */
  actionTimeout: number;
  screenshots: { phases: Phase[]; delay: string };
  baselines: { pathTemplate: string; update: UpdateBaselines };
  /** Box ids to use as they are; else `create` linux boxes are created (and terminated after). */
  boxes: { ids: string[]; createLinux: number; createAndroid: number };
  /** Video of each flow attempt (Playwright's modes); default off. */
  video?: VideoMode;
}

/** Playwright's video modes: none, every attempt's, or only a failed attempt's. */
export type VideoMode = 'off' | 'on' | 'retain-on-failure';
export const kVideoModes: readonly VideoMode[] = ['off', 'on', 'retain-on-failure'];
