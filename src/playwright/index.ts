// `boxflow/test`: Playwright Test with a `box` fixture and box matchers.
//
//   import { test, expect } from 'boxflow/test';
//   test('sign in', async ({ box }) => {
//     await box.openTab('http://127.0.0.1:4173/login');
//     await box.tap({ css: '#email' });
//     await expect(box).toShow('Sign in');
//   });
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect as baseExpect, test as base, type ExpectMatcherState } from '@playwright/test';
import { describeSelector } from '../layout/index.js';
import type { Selector } from '../layout/types.js';
import type { ScreenshotMatchOptions } from '../flow/types.js';
import { tsStep } from '../flow/tsApi.js';
import type { UpdateBaselines } from '../runner/options.js';
import type { StepRecord } from '../runner/types.js';
import { boxVideoMode, recordingWarnings } from './recording.js';
import { BoxService } from './service.js';
import { BoxSession, sessionOf, type Box } from './session.js';

export type { Box } from './session.js';
export type { Selector } from '../layout/types.js';

export interface BoxflowTestOptions {
  /** The kind of box a test gets when `boxId` is not set. Default `linux`. */
  boxType: 'linux' | 'android';
  /** An existing box to run on (not terminated at the end). */
  boxId: string | undefined;
  /**
   * Names of environment variables whose values are secrets, as a flow's `secrets:`: hidden as
   * `***` in step titles, messages and errors, and typed without a readable trace image.
   */
  boxSecrets: string[];
}

export interface BoxflowWorkerOptions {
  /** The Box API service, ending in /api/v1. Default: boxflow.config's baseUrl, BOXFLOW_BASE_URL, GBOX_BASE_URL, else the embedded local server. */
  baseUrl: string | undefined;
}

interface TestFixtures extends BoxflowTestOptions {
  box: Box;
}

interface WorkerFixtures extends BoxflowWorkerOptions {
  boxflowService: BoxService;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  boxType: ['linux', { option: true }],
  boxId: [undefined, { option: true }],
  boxSecrets: [[], { option: true }],
  baseUrl: [undefined, { option: true, scope: 'worker' }],
  boxflowService: [
    async ({ baseUrl }, use, workerInfo) => {
      const rootDir = workerInfo.config.configFile ? dirname(workerInfo.config.configFile) : process.cwd();
      const service = await BoxService.start({ baseUrl, rootDir, parallelIndex: workerInfo.parallelIndex });
      try {
        await use(service);
      } finally {
        await service.close();
      }
    },
    { scope: 'worker', timeout: 60_000, title: 'boxflow service' },
  ],
  box: [
    async ({ boxflowService, boxType, boxId, boxSecrets, baseURL, video, trace }, use, testInfo) => {
      const rootDir = testInfo.config.configFile ? dirname(testInfo.config.configFile) : process.cwd();
      const secrets = boxSecrets.map((name) => process.env[name]);
      // Playwright's own `video` records the box too (recording.ts); what cannot reach the box is said once.
      for (const warning of recordingWarnings(video, trace, boxflowService.options.screenshots.phases)) boxflowService.warnOnce(warning);
      const mode = boxVideoMode(video, testInfo.retry);
      const session = await BoxSession.open(boxflowService, { boxType, boxId }, testInfo, { rootDir, baseURL, secrets, ...(mode ? { video: mode } : {}) });
      try {
        await use(session.box);
      } finally {
        await session.close(testInfo.status !== testInfo.expectedStatus);
      }
    },
    { title: 'box' },
  ],
});

function failureText(record: StepRecord): string {
  const e = record.error;
  return e ? `${e.code}: ${e.message}` : '';
}

function hint(state: ExpectMatcherState, name: string, expected: string): string {
  return state.utils.matcherHint(name, 'box', expected, { isNot: state.isNot, promise: state.promise });
}

/** Playwright's `updateSnapshots` as a boxflow update mode (the same names; `default` writes a missing baseline and fails). */
function updateMode(mode: string): UpdateBaselines {
  return mode === 'all' || mode === 'changed' || mode === 'none' || mode === 'missing' ? mode : 'default';
}

export const expect = baseExpect.extend({
  /** Polls the box's layout until the selector matches a visible element (`.not`: until none does). */
  async toShow(this: ExpectMatcherState, box: Box, selector: Selector, opts?: { timeout?: number }) {
    const session = sessionOf(box);
    const record = await session.assert({ [this.isNot ? 'assertNotVisible' : 'assertVisible']: selector }, opts?.timeout ?? this.timeout);
    const held = record.status === 'passed';
    const head = hint(this, 'toShow', describeSelector(selector));
    return {
      name: 'toShow',
      pass: this.isNot ? !held : held,
      expected: selector,
      message: () => (held ? `${head}\n\n${record.message ?? ''}` : `${head}\n\n${failureText(record)}`),
    };
  },

  /** Polls the layout until the match has the count, text and attributes asked for. */
  async toHaveLayout(
    this: ExpectMatcherState,
    box: Box,
    spec: { selector: Selector; count?: number; text?: string; attributes?: Record<string, string> },
    opts?: { timeout?: number },
  ) {
    if (this.isNot) throw new Error('expect(box).not.toHaveLayout() is not supported; use toHaveLayout({ count: 0 }) or not.toShow()');
    const session = sessionOf(box);
    // The step a TS flow's expect(box).toHaveLayout(spec) runs, from the step table: the
    // {selector, count, text, attributes} form, where `text` is the expected text of the match.
    const record = await session.assert(tsStep('assertLayout', spec), opts?.timeout ?? this.timeout);
    const head = hint(this, 'toHaveLayout', describeSelector(spec.selector));
    return { name: 'toHaveLayout', pass: record.status === 'passed', expected: spec, message: () => `${head}\n\n${record.status === 'passed' ? (record.message ?? '') : failureText(record)}` };
  },

  /**
   * A stable capture of the box's screen against the baseline at Playwright's snapshot path
   * (`testInfo.snapshotPath(name + '.png', { kind: 'screenshot' })`), honouring `--update-snapshots`.
   */
  async toMatchScreenshot(this: ExpectMatcherState, box: Box, name: string, opts: ScreenshotMatchOptions & { timeout?: number } = {}) {
    if (this.isNot) throw new Error('expect(box).not.toMatchScreenshot() is not supported');
    const session = sessionOf(box);
    const info = base.info();
    const snapshot = info.snapshotPath(`${name}.png`, { kind: 'screenshot' });
    const mode = info.config.updateSnapshots as string;
    const { timeout, ...visual } = opts;
    const existed = existsSync(snapshot);
    const record = await session.assertScreenshot(name, snapshot, updateMode(mode), visual, timeout ?? this.timeout);
    const head = hint(this, 'toMatchScreenshot', JSON.stringify(name));
    if (record.status !== 'passed') {
      // As toHaveScreenshot does by default: a missing baseline is written, and the test that wrote it fails.
      const wrote = record.visual?.written === 'missing';
      if (wrote) await info.attach(`${name}-actual.png`, { path: snapshot, contentType: 'image/png' });
      const why = !existed ? `A snapshot doesn't exist at ${snapshot}${wrote ? ', writing actual' : ''}.` : failureText(record);
      return { name: 'toMatchScreenshot', pass: false, expected: snapshot, message: () => `${head}\n\n${why}` };
    }
    return { name: 'toMatchScreenshot', pass: true, expected: snapshot, message: () => `${head}\n\n${record.message ?? ''}` };
  },
});
