// Android-only steps, through the client (the server answers UNSUPPORTED_BOX_TYPE on Linux boxes).
import { resolve, dirname } from 'node:path';
import { BoxApiError } from '../../api/client.js';
import { BoxflowError } from '../../errors.js';
import { handler, type StepHandler } from './types.js';

export const installApp: StepHandler<'installApp'> = handler(['apk'], async (step, run) => {
  let { apk } = step;
  if (!/^https?:\/\//i.test(apk)) apk = resolve(dirname(run.flowFile), apk);
  const body: { apk: string; open?: boolean } = { apk };
  if (step.open !== undefined) body.open = step.open;
  const result = await run.rt.client.installPackage(run.rt.box.id, body, { signal: run.signal, timeoutMs: Math.max(run.timeoutMs, 300_000) });
  run.record.message = `installed ${result.packageName} (${result.activities.length} activities)`;
});

export const closeAllApps: StepHandler<'closeAllApps'> = handler([], async (_step, run) => {
  await run.rt.client.closeAllApps(run.rt.box.id, { signal: run.signal });
  run.record.message = 'all apps closed';
});

export const assertPackage: StepHandler<'assertPackage'> = handler(['package', 'version'], async (step, run) => {
  const name = step.package;
  const pkg = await run.rt.client.getPackage(run.rt.box.id, name, { signal: run.signal }).catch((err: unknown) => {
    if (err instanceof BoxApiError && err.httpStatus === 404) return undefined;
    throw err;
  });
  const fail = (what: string) => {
    throw new BoxflowError('ASSERT_PACKAGE', `${name}: ${what}`);
  };
  const installed = step.installed ?? true;
  if (!pkg) {
    if (installed) fail('is not installed');
    run.record.message = `${name} is not installed`;
    return;
  }
  if (!installed) fail(`is installed (${pkg.apkPath})`);
  if (step.running !== undefined && pkg.isRunning !== step.running) fail(pkg.isRunning ? 'is running' : 'is not running');
  if (step.type !== undefined && pkg.pkgType !== step.type) fail(`is a ${pkg.pkgType} package, expected ${step.type}`);
  if (step.version !== undefined && pkg.version !== step.version) fail(`has version ${pkg.version}, expected ${step.version}`);
  if (step.launcher !== undefined) {
    const { data } = await run.rt.client.listApps(run.rt.box.id, { signal: run.signal });
    const onLauncher = data.some((a) => a.packageName === name);
    if (onLauncher !== step.launcher) fail(onLauncher ? 'is on the launcher' : 'is not on the launcher');
  }
  run.record.message = `${name} ${pkg.version} (${pkg.pkgType}${pkg.isRunning ? ', running' : ''})`;
});
