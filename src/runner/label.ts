// A step's default label reads like the step: `tap #email`, `type "demo@…"`, `assertVisible "Welcome"`.
import { describeSelector, kNestedKeys } from '../layout/index.js';
import type { Selector } from '../layout/types.js';
import type { Step, Target } from '../flow/types.js';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const quoted = (s: string, n = 40) => JSON.stringify(clip(s, n));

/** A selector as a user would point at it: "Welcome", #email, .todo label, [Menu], "OK" below #title. */
export function selectorLabel(sel: Selector): string {
  if (typeof sel === 'string') return quoted(sel);
  const relative = kNestedKeys.filter((k) => sel[k] !== undefined);
  if (relative.length) {
    const base = { ...sel };
    for (const k of relative) delete base[k];
    const inner = (v: Selector | Selector[]) => (Array.isArray(v) ? `[${v.map(selectorLabel).join(', ')}]` : selectorLabel(v));
    if (Object.keys(base).length) return `${selectorLabel(base)} ${relative.map((k) => `${k} ${inner(sel[k]!)}`).join(' ')}`;
  }
  const keys = Object.keys(sel).filter((k) => sel[k as keyof typeof sel] !== undefined);
  const index = sel.index !== undefined ? ` [${sel.index}]` : '';
  if (keys.length === 1 || (keys.length === 2 && index)) {
    if (sel.css !== undefined) return clip(sel.css, 60) + index;
    if (sel.id !== undefined) return `#${sel.id}${index}`;
    if (sel.text !== undefined) return quoted(sel.text) + index;
    if (sel.textContains !== undefined) return `…${quoted(sel.textContains)}…${index}`;
    if (sel.desc !== undefined) return `[${clip(sel.desc, 40)}]${index}`;
    if (sel.xpath !== undefined) return clip(sel.xpath, 60) + index;
    if (sel.class !== undefined) return sel.class + index;
  }
  return clip(describeSelector(sel), 80);
}

function targetLabel(t: Target): string {
  if ('selector' in t) return selectorLabel(t.selector);
  if ('point' in t) return `(${t.point.x}, ${t.point.y})`;
  if ('percent' in t) return `${t.percent.x}%,${t.percent.y}%`;
  return quoted(t.prompt);
}

export function stepLabel(step: Step): string {
  const k = step.kind;
  switch (step.kind) {
    case 'tap':
    case 'doubleTap':
    case 'hover':
      return `${k} ${targetLabel(step.target)}`;
    case 'longPress':
      return `longPress ${targetLabel(step.target)}${step.duration !== 1000 ? ` ${step.duration} ms` : ''}`;
    case 'swipe':
      if (step.direction) return `swipe ${step.direction}${step.on ? ` on ${selectorLabel(step.on)}` : ''}`;
      return `swipe ${step.from ? targetLabel(step.from) : '?'} → ${step.to ? targetLabel(step.to) : '?'}`;
    case 'drag':
      return step.path ? `drag along ${step.path.length} points` : `drag ${step.from ? targetLabel(step.from) : '?'} → ${step.to ? targetLabel(step.to) : '?'}`;
    case 'scrollUntilVisible':
      return `scrollUntilVisible ${selectorLabel(step.selector)} (${step.direction})`;
    case 'pressKey':
      return `pressKey ${step.keys.join(step.combination ? '+' : ', ')}`;
    case 'type':
      return `type ${quoted(step.text, 12)}${step.pressEnter ? ' ⏎' : ''}`;
    case 'selectOption':
      return `selectOption ${selectorLabel(step.selector)} ${step.by === 'value' ? 'value ' : ''}${quoted(step.option)}`;
    case 'fill':
      return `fill ${selectorLabel(step.selector)} ${quoted(step.value, 20)}`;
    case 'check':
    case 'uncheck':
    case 'assertVisible':
    case 'assertNotVisible':
      return `${k} ${selectorLabel(step.selector)}`;
    case 'assertLayout':
      return `assertLayout ${selectorLabel(step.selector)}${step.count !== undefined ? ` count ${step.count}` : ''}${step.text !== undefined ? ` text ${quoted(step.text)}` : ''}`;
    case 'uploadFile':
      return `uploadFile ${selectorLabel(step.selector)} ${step.files.map((f) => f.slice(f.lastIndexOf('/') + 1)).join(', ')}`;
    case 'assertUrl':
      return `assertUrl ${step.url}`;
    case 'assertTitle':
      return `assertTitle ${quoted(step.title)}`;
    case 'openTab':
      return `openTab ${clip(step.url, 80)}`;
    case 'setScale':
      return `setScale ${step.scale}`;
    case 'setResolution':
      return `setResolution ${step.width}×${step.height}`;
    case 'installApp':
      return `installApp ${step.apk.slice(step.apk.lastIndexOf('/') + 1)}`;
    case 'assertPackage':
      return `assertPackage ${step.package}`;
    case 'renameFile':
      return `renameFile ${step.from} → ${step.to}`;
    case 'deleteMedia':
      return `deleteMedia ${step.album}/${step.media}`;
    case 'deleteAlbum':
      return `deleteAlbum ${step.album}`;
    case 'assertScreenshot':
    case 'screenshot':
      return `${k} ${step.name}`;
    case 'sleep':
      return `sleep ${step.ms} ms`;
    case 'runFlow':
      return `runFlow ${step.file.slice(step.file.lastIndexOf('/') + 1)}`;
    case 'repeat': {
      if (step.times !== undefined) return `repeat ${step.times}×`;
      const w = step.while!;
      const cond = w.true !== undefined ? clip(w.true, 60) : w.visible !== undefined ? `visible ${selectorLabel(w.visible)}` : `not visible ${selectorLabel(w.notVisible!)}`;
      // A one-round loop is how a condition guards steps (Maestro's when on inline commands).
      return step.max === 1 ? `if ${cond}` : `repeat while ${cond}`;
    }
    case 'retry':
      return `retry up to ${step.times}×`;
    case 'launchApp':
    case 'stopApp':
    case 'clearState':
      return step.appId !== undefined ? `${k} ${clip(step.appId, 60)}` : k;
    case 'eraseText':
      return step.chars !== undefined ? `eraseText ${step.chars}` : 'eraseText all';
    case 'openLink':
      return `openLink ${clip(step.link, 80)}`;
    case 'copyTextFrom':
      return `copyTextFrom ${selectorLabel(step.selector)}`;
    case 'inputRandom':
      return `inputRandom ${step.type}`;
    case 'assertTrue':
      return `assertTrue ${clip(step.condition, 60)}`;
    case 'evalScript':
      return `evalScript ${clip(step.script.replace(/\s+/g, ' '), 60)}`;
    case 'runScript':
      return `runScript ${step.file.slice(step.file.lastIndexOf('/') + 1)}`;
    default:
      return k;
  }
}
