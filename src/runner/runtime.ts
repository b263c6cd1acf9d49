// The one place a flow's runtime is built: `boxflow test` (run.ts) and `boxflow/test`
// (playwright/session.ts) both run steps through an Executor on what this returns.
import { BoxApiError, type BoxClient } from '../api/client.js';
import { loadFlowFile } from '../flow/index.js';
import type { Flow } from '../flow/types.js';
import type { Masker } from '../mask.js';
import type { ArtifactStore } from './artifacts.js';
import type { BoxState } from './boxPool.js';
import { LayoutSource } from './layoutSource.js';
import type { RunOptions } from './options.js';
import type { ExecutorHooks, FlowRuntime, FlowState } from './steps/types.js';
import type { BoxInfo, FlowInfo } from './types.js';

export interface RuntimeParts {
  client: BoxClient;
  box: BoxInfo;
  boxState: BoxState;
  flow: Flow;
  info: FlowInfo;
  options: RunOptions;
  artifacts: ArtifactStore;
  masker: Masker;
  hooks: ExecutorHooks;
  /** The run's cache of sub-flows (a runFlow file is loaded once per run); a fresh one when absent. */
  loadFlow?: (file: string) => Promise<Flow>;
}

/** A loader that reads each flow file once. */
export function cachedFlowLoader(): (file: string) => Promise<Flow> {
  const cache = new Map<string, Promise<Flow>>();
  return (file) => {
    let p = cache.get(file);
    if (!p) cache.set(file, (p = loadFlowFile(file)));
    return p;
  };
}

/**
 * The box's action scale. A service without the settings endpoint (404 for the route, 405, 501) acts
 * at scale 1; any other failure (401, 5xx, the box gone) is the flow's error, with its own code.
 */
async function actionScale(client: BoxClient, boxId: string, signal: AbortSignal | undefined): Promise<number> {
  try {
    return (await client.getSettings(boxId, signal ? { signal } : {})).scale;
  } catch (err) {
    if (err instanceof BoxApiError && ((err.status === 404 && err.serverCode !== 'BOX_NOT_FOUND') || err.status === 405 || err.status === 501)) return 1;
    throw err;
  }
}

/**
 * The runtime of one flow (or test) on one box. The box's action scale is read first: a service
 * that refuses it (401, 5xx) fails the flow with its own code, never a silent scale of 1.
 */
export async function createFlowRuntime(parts: RuntimeParts, signal?: AbortSignal): Promise<FlowRuntime> {
  const state: FlowState = { scale: 1 };
  state.scale = await actionScale(parts.client, parts.box.id, signal);
  const { masker } = parts;
  return {
    client: parts.client,
    box: parts.box,
    flow: parts.flow,
    info: parts.info,
    options: parts.options,
    artifacts: parts.artifacts,
    layout: new LayoutSource(parts.client, parts.box, state),
    state,
    boxState: parts.boxState,
    masker,
    addSecrets: (values) => void masker.add(values),
    loadFlow: parts.loadFlow ?? cachedFlowLoader(),
    hooks: parts.hooks,
  };
}
