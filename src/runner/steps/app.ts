// Mobile-flow steps (launchApp, back, eraseText, scripts...). Android: the app and button
// endpoints; Linux boxes: what a web user means by the same words (the app is the site).
import { readFile } from 'node:fs/promises';
import { randomInt } from 'node:crypto';
import { BoxflowError, kStepNeedsApp } from '../../errors.js';
import { describeSelector, query } from '../../layout/index.js';
import type { Selector } from '../../layout/types.js';
import { delay } from '../poll.js';
import { stableCapture } from '../../visual/index.js';
import type { Step } from '../../flow/types.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import { isTrueText, scriptHostFor } from '../script.js';
import { closeBrowser, openTab, tap } from './actions.js';
import { findVisible } from './target.js';
import { boxCommand, flowAppId, keepWebState, kKeychainNote, launchPermissions, shWord } from './device.js';
import { captureOnce } from './visual.js';

const isLinux = (run: StepRun) => run.rt.box.type === 'linux';

function androidApp(run: StepRun, appId: string | undefined, what: string): string {
  const id = appId ?? flowAppId(run);
  if (!id) throw kStepNeedsApp(what, 'it');
  return id;
}

/** Linux boxes: the app is a site; its URL is appId when that is one, else appBaseUrl. */
function siteUrl(run: StepRun, appId: string | undefined): string {
  for (const id of [appId, flowAppId(run)]) {
    if (id !== undefined && /^https?:\/\//i.test(id)) return id;
  }
  if (run.rt.options.appBaseUrl) return run.rt.options.appBaseUrl;
  throw new BoxflowError('STEP_INVALID', `launchApp on a Linux box opens the app's URL: give an http(s) appId (step or flow), or set appBaseUrl in boxflow.config`);
}

async function clearSiteData(run: StepRun): Promise<string> {
  const tab = await run.rt.layout.tab();
  await tab.clearCookies();
  // about:blank and opaque origins have no storage (the clear throws there).
  return tab.evaluate<string>('(() => { try { localStorage.clear(); sessionStorage.clear(); } catch {} return location.origin; })()');
}

/** Linux boxes: launch arguments are what a site reads at start, its URL's query parameters. */
function withQuery(url: string, args: Record<string, string> | undefined): string {
  if (!args) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(args)) u.searchParams.set(k, v);
  return u.href;
}

export const launchApp: StepHandler<'launchApp'> = handler(['appId', 'arguments', 'permissions'], async (step, run) => {
  const args = step.arguments;
  const notes = step.clearKeychain ? [kKeychainNote(run)] : [];
  if (isLinux(run)) {
    const url = withQuery(siteUrl(run, step.appId), args);
    if (step.clearState) await clearSiteData(run);
    if (step.stopApp) await closeBrowser({ kind: 'closeBrowser', source: step.source }, run);
    await openTab({ kind: 'openTab', url, source: step.source }, run);
    await keepWebState(run);
    if (step.permissions) {
      // The site's permissions, once it has an origin in the tab; it loads again to start with them.
      notes.push(await launchPermissions(run, step.appId, step.permissions, (run.written as typeof step).permissions ?? step.permissions));
      // A navigation is bounded as openTab's is: the step timeout, at least 30 s.
      await (await run.rt.layout.tab()).reload(Math.max(run.timeoutMs, 30_000));
      run.rt.layout.reset();
      await keepWebState(run);
    }
    if (notes.length) run.record.message = [run.record.message, ...notes].filter(Boolean).join('; ');
    return;
  }
  const app = androidApp(run, step.appId, 'launchApp');
  const opts = { signal: run.signal };
  if (step.clearState) await run.rt.client.clearAppData(run.rt.box.id, app, opts);
  // As Maestro: permissions are set after clearing the data and before the app starts.
  if (step.permissions) notes.push(await launchPermissions(run, app, step.permissions, (run.written as typeof step).permissions ?? step.permissions));
  const body = args && Object.keys(args).length ? { extras: args } : {};
  if (step.stopApp) await run.rt.client.restartApp(run.rt.box.id, app, body, opts);
  else await run.rt.client.openApp(run.rt.box.id, app, body, opts);
  run.record.message = [`${step.stopApp ? 'restarted' : 'opened'} ${app}${step.clearState ? ' with its data cleared' : ''}`, ...notes].join('; ');
});

export const stopApp: StepHandler<'stopApp'> = handler(['appId'], async (step, run) => {
  if (isLinux(run)) return closeBrowser({ kind: 'closeBrowser', source: step.source }, run);
  const app = androidApp(run, step.appId, 'stopApp');
  if (step.processDeath) {
    // As the system kills an app in the background: `am kill` (it kills only what is safe to kill).
    const r = await boxCommand(run, `am kill ${shWord(app)}`, 'stopApp processDeath');
    if (r.exitCode !== 0) throw new BoxflowError('DEVICE_ERROR', `am kill ${app} failed (exit ${r.exitCode}): ${`${r.stdout}${r.stderr}`.trim() || 'no output'}`);
    run.record.message = `killed the process of ${app} (process death)`;
    return;
  }
  await run.rt.client.closeApp(run.rt.box.id, app, { signal: run.signal });
  run.record.message = `stopped ${app}`;
});

export const clearState: StepHandler<'clearState'> = handler(['appId'], async (step, run) => {
  if (isLinux(run)) {
    run.record.message = `cleared cookies and storage of ${await clearSiteData(run)}`;
    return;
  }
  const app = androidApp(run, step.appId, 'clearState');
  await run.rt.client.clearAppData(run.rt.box.id, app, { signal: run.signal });
  run.record.message = `cleared the data of ${app}`;
});

async function pressButton(run: StepRun, button: 'back' | 'home', step: Parameters<StepHandler>[0]): Promise<void> {
  const result = await run.rt.client.pressButton(run.rt.box.id, { buttons: [button], options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
  // The page may be another one now: the next lookup must not reuse this one's layout.
  run.rt.layout.reset();
}

export const back: StepHandler<'back'> = handler([], async (step, run) => {
  if (!isLinux(run)) return pressButton(run, 'back', step);
  // Over CDP rather than the press-button endpoint, which waits for a load event that a page
  // restored from the back-forward cache never fires: the step only needs the navigation to commit.
  const tab = await run.rt.layout.tab();
  const from = await tab.url();
  const went = await tab.goBack(Math.max(1, run.deadline - performance.now()));
  const now = went ? await tab.url() : from;
  run.rt.layout.reset();
  await keepWebState(run);
  run.record.message = now === from ? `no earlier page in the tab's history (still at ${from})` : `back to ${now}`;
});

export const home: StepHandler<'home'> = handler([], async (step, run) => {
  if (isLinux(run)) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `home is a hardware button of Android boxes; box ${run.rt.box.id} is linux (use openTab or launchApp to go to a page)`);
  await pressButton(run, 'home', step);
});

export const hideKeyboard: StepHandler<'hideKeyboard'> = handler([], async (step, run) => {
  if (!isLinux(run)) {
    // Back closes an open keyboard; pressed blind it would leave the screen, so only when the
    // layout's root says the keyboard is shown (boxflow serve's Android boxes do).
    const state = /<hierarchy\b[^>]*\skeyboard="(shown|hidden)"/.exec(await run.rt.layout.content(run.signal))?.[1];
    if (!state) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `hideKeyboard: box ${run.rt.box.id}'s screen layout does not say whether the keyboard is shown (boxflow serve's Android boxes do)`);
    if (state === 'hidden') {
      run.record.message = 'the keyboard was not shown';
      return;
    }
    await pressButton(run, 'back', step);
    run.record.message = 'keyboard closed (back)';
    return;
  }
  const blurred = await (await run.rt.layout.tab()).evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return '';
    el.blur();
    return el.localName + (el.id ? '#' + el.id : '');
  })()`);
  run.record.message = blurred ? `focus taken off ${blurred}` : 'no field had the focus';
});

export const eraseText: StepHandler<'eraseText'> = handler([], async (step, run) => {
  const opts = { signal: run.signal, timeoutMs: run.rt.options.actionTimeout };
  if (step.chars === undefined) {
    const result = await run.rt.client.type(run.rt.box.id, { text: '', mode: 'replace', options: run.actionOptions(step) }, opts);
    await run.recordAction(result);
    run.record.message = 'field emptied';
    return;
  }
  const keys = Array.from({ length: step.chars }, () => 'backspace' as const);
  for (let i = 0; i < keys.length; i += 100) {
    const result = await run.rt.client.pressKey(run.rt.box.id, { keys: keys.slice(i, i + 100), combination: false, options: run.actionOptions(step) }, opts);
    await run.recordAction(result);
  }
  run.record.message = `erased ${step.chars} character${step.chars === 1 ? '' : 's'}`;
});

export const openLink: StepHandler<'openLink'> = handler(['link'], async (step, run) => {
  // The web has no "open with" choice to make (Maestro ignores browser and autoVerify there too).
  if (isLinux(run)) return openTab({ kind: 'openTab', url: step.link, source: step.source }, run);
  const url = step.link;
  if (step.browser) {
    // As Maestro: a VIEW intent for Chrome, else Firefox, else whatever takes it.
    const installed = (await boxCommand(run, 'pm list packages', 'openLink browser')).stdout;
    const browser = ['com.android.chrome', 'org.mozilla.firefox'].find((p) => new RegExp(`^package:${p.replaceAll('.', '\\.')}\\s*$`, 'm').test(installed));
    const r = await boxCommand(run, `am start -a android.intent.action.VIEW -d ${shWord(url)}${browser ? ` ${shWord(browser)}` : ''}`, 'openLink browser');
    if (r.exitCode !== 0 || /^Error:/m.test(r.stdout)) throw new BoxflowError('DEVICE_ERROR', `openLink: the device did not open ${url}: ${r.stdout.trim() || `exit ${r.exitCode}`}`);
    run.record.message = `opened ${url} in ${browser ?? 'the app that takes it (no Chrome or Firefox installed)'}`;
  } else {
    // Android boxes open a tab's URL as a VIEW intent: the app that claims the link takes it.
    const tab = await run.rt.client.openTab(run.rt.box.id, { url }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
    run.record.message = `opened ${url}${tab.id ? ` in ${tab.id}` : ''}`;
  }
  run.rt.layout.reset();
  if (step.autoVerify) run.record.message += `; ${await autoVerify(run)}`;
});

/**
 * Maestro's autoVerify: in the "open with" chooser, the flow's app (by its name) and "Just once";
 * then Chrome's first-run screens (accept the terms, no thanks to sign-in). Each only where it shows.
 */
async function autoVerify(run: StepRun): Promise<string> {
  const done: string[] = [];
  const tapIf = async (selector: Selector, what: string) => {
    const tree = await run.rt.layout.tree(run.signal);
    const node = query(tree, selector)[0];
    if (!node?.bounds) return false;
    const b = node.bounds;
    await tap({ kind: 'tap', target: { point: { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 } }, source: run.record.source!, screenshots: false }, run);
    run.rt.layout.reset();
    done.push(what);
    return true;
  };
  await delay(1000, run.signal);
  const appId = flowAppId(run);
  if (appId && !/^https?:/i.test(appId)) {
    const name = await run.rt.client.getPackage(run.rt.box.id, appId, { signal: run.signal }).then((p) => p.name, () => undefined);
    if (name && (await tapIf({ text: `/^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$/i` }, name))) await tapIf({ id: 'android:id/button_once' }, 'Just once');
  }
  if (await tapIf({ id: 'com.android.chrome:id/terms_accept' }, 'Chrome\'s terms')) await tapIf({ id: 'com.android.chrome:id/negative_button' }, 'no sign-in');
  return done.length ? `auto-verified: ${done.join(', ')}` : 'auto-verify: no chooser or first-run screen showed';
}

export const waitForAnimationToEnd: StepHandler<'waitForAnimationToEnd'> = handler([], async (_step, run) => {
  const result = await stableCapture(() => captureOnce(run), { timeoutMs: Math.max(0, run.deadline - performance.now()), signal: run.signal });
  if (!result.stable) throw new BoxflowError('SCREENSHOT_UNSTABLE', `the screen was still changing after ${run.timeoutMs} ms (${result.frames} screenshots)`);
  run.record.message = `screen still after ${result.frames} screenshots`;
});

export const copyTextFrom: StepHandler<'copyTextFrom'> = handler(['selector'], async (step, run) => {
  const node = await findVisible(run, step.selector);
  const text = node.text || node.desc;
  if (!text) throw new BoxflowError('ELEMENT_NOT_FOUND', `${describeSelector(step.selector)} has no text to copy`);
  scriptHostFor(run.rt.state).copiedText = text;
  run.record.message = `copied ${JSON.stringify(text)}`;
});

async function typeText(run: StepRun, text: string, step: Parameters<StepHandler>[0]): Promise<void> {
  const result = await run.rt.client.type(run.rt.box.id, { text, options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
}

export const pasteText: StepHandler<'pasteText'> = handler([], async (step, run) => {
  const text = scriptHostFor(run.rt.state).copiedText;
  if (text === undefined) throw new BoxflowError('STEP_INVALID', 'pasteText: nothing was copied; a copyTextFrom step must run before');
  await typeText(run, text, step);
  run.record.message = `pasted ${JSON.stringify(text)}`;
});

const kLetters = 'abcdefghijklmnopqrstuvwxyz';
const kFirstNames = ['Alice', 'Bruno', 'Chloé', 'David', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noah', 'Olga', 'Pablo'];
const kLastNames = ['Martin', 'Smith', 'Garcia', 'Nguyen', 'Kowalski', 'Rossi', 'Schmidt', 'Tanaka', 'Dubois', 'Silva', 'Olsen', 'Haddad'];
const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;
const letters = (n: number) => Array.from({ length: n }, () => pick([...kLetters])).join('');

const kCities = ['Lisbon', 'Osaka', 'Denver', 'Lyon', 'Porto', 'Austin', 'Bergen', 'Cork', 'Graz', 'Tartu'];
const kCountries = ['Portugal', 'Japan', 'Canada', 'France', 'Norway', 'Ireland', 'Austria', 'Estonia', 'Chile', 'Kenya'];
const kColors = ['red', 'green', 'blue', 'yellow', 'purple', 'orange', 'teal', 'black', 'white', 'grey'];

export function randomText(type: Extract<Step, { kind: 'inputRandom' }>['type'], length = 8): string {
  switch (type) {
    case 'text':
      return letters(length);
    case 'number':
      // No leading zero: a field that parses numbers keeps every digit.
      return String(randomInt(1, 10)) + Array.from({ length: length - 1 }, () => randomInt(10)).join('');
    case 'email':
      return `${letters(8)}@example.com`;
    case 'personName':
      return `${pick(kFirstNames)} ${pick(kLastNames)}`;
    case 'cityName':
      return pick(kCities);
    case 'countryName':
      return pick(kCountries);
    case 'colorName':
      return pick(kColors);
  }
}

export const inputRandom: StepHandler<'inputRandom'> = handler([], async (step, run) => {
  const text = randomText(step.type, step.length);
  await typeText(run, text, step);
  run.record.message = `typed ${JSON.stringify(text)}`;
});

export const assertTrue: StepHandler<'assertTrue'> = handler(['condition'], async (step, run) => {
  // The condition as written, and what it gave.
  const text = step.condition;
  const written = (run.written as typeof step).condition;
  if (!isTrueText(text)) throw new BoxflowError('FLOW_ERROR', `assertTrue: ${written} is ${JSON.stringify(text)}, not true`);
  run.record.message = `${written} is ${JSON.stringify(text)}`;
});

const scriptGlobals = (run: StepRun, extra: Record<string, string> = {}) => ({ vars: { ...run.vars, ...extra }, platform: isLinux(run) ? ('web' as const) : ('android' as const) });

function logMessage(result: string, logs: string[]): string {
  return [...logs, ...(result === 'undefined' ? [] : [`= ${result}`])].join('\n') || 'ran';
}

export const evalScript: StepHandler<'evalScript'> = handler([], async (step, run) => {
  // `${expr}` alone is the Maestro form of the same script.
  const whole = /^\$\{([\s\S]*)\}$/.exec(step.script.trim());
  const code = whole && !whole[1]!.includes('${') ? whole[1]! : step.script;
  const logs: string[] = [];
  const result = scriptHostFor(run.rt.state).run(code, scriptGlobals(run), 'evalScript', logs);
  run.record.message = logMessage(result, logs);
});

export const runScript: StepHandler<'runScript'> = handler(['file', 'env'], async (step, run) => {
  const { file } = step;
  const code = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new BoxflowError('FILE_NOT_FOUND', `runScript: cannot read ${file.slice(file.lastIndexOf('/') + 1)} (${err.code ?? err.message})`);
  });
  const logs: string[] = [];
  const result = scriptHostFor(run.rt.state).run(code, scriptGlobals(run, step.env ?? {}), file.slice(file.lastIndexOf('/') + 1), logs);
  run.record.message = logMessage(result, logs);
});
