// RunOptions for tests and benches that call the runner directly; override what the case needs.
import { join } from 'node:path';
import type { RunOptions } from '../../src/runner/options.js';

export function testRunOptions(dir: string, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    rootDir: dir,
    outputDir: join(dir, 'out'),
    workers: 1,
    retries: 0,
    tags: [],
    stepTimeout: 5_000,
    flowTimeout: 60_000,
    actionTimeout: 30_000,
    screenshots: { phases: [], delay: '0ms' },
    baselines: { pathTemplate: '{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png', update: 'none' },
    boxes: { ids: [], createLinux: 1, createAndroid: 0 },
    ...overrides,
  };
}
