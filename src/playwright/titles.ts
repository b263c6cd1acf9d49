// Titles of the Playwright steps that box calls become: what a person reads in the report,
// e.g. `tap "Sign in"`, `type "demo@example.com"`, `pressKey control+a`, `runFlow flows/x.flow.yaml`.
import { relative } from 'node:path';
import type { Step, Target } from '../flow/types.js';
import { describeSelector } from '../layout/index.js';
import type { Masker } from '../mask.js';

function target(t: Target | undefined): string {
  if (!t) return '';
  if ('selector' in t) return describeSelector(t.selector);
  if ('point' in t) return `(${t.point.x}, ${t.point.y})`;
  if ('percent' in t) return `(${t.percent.x}%, ${t.percent.y}%)`;
  return `prompt ${JSON.stringify(t.prompt)}`;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function args(step: Step, rootDir: string): string {
  switch (step.kind) {
    case 'tap':
    case 'longPress':
      return target(step.target);
    case 'swipe':
      return step.direction ? `${step.direction}${step.on ? ` on ${describeSelector(step.on)}` : ''}` : `${target(step.from)} → ${target(step.to)}`;
    case 'drag':
      return step.path ? `${step.path.length} points` : `${target(step.from)} → ${target(step.to)}`;
    case 'type':
      return `${JSON.stringify(step.text)}${step.pressEnter ? ' ⏎' : ''}`;
    case 'pressKey':
      return step.keys.join(step.combination ? '+' : ' ');
    case 'openTab':
      return step.url;
    case 'setScale':
      return String(step.scale);
    case 'setResolution':
      return `${step.width}×${step.height}`;
    case 'screenshot':
    case 'assertScreenshot':
      return JSON.stringify(step.name);
    case 'sleep':
      return `${step.ms}ms`;
    case 'runFlow':
      return relative(rootDir, step.file) || step.file;
    case 'assertVisible':
    case 'assertNotVisible':
    case 'assertLayout':
    case 'scrollUntilVisible':
      return describeSelector(step.selector);
    default: {
      const { kind: _k, source: _s, label: _l, optional: _o, timeout: _t, screenshots: _sc, ...rest } = step as Step & Record<string, unknown>;
      return Object.keys(rest).length ? JSON.stringify(rest) : '';
    }
  }
}

/** The step's title: its own `label`, else the kind and its main argument; secrets masked. */
export function stepTitle(step: Step, rootDir: string, masker: Masker): string {
  if (step.label) return masker.text(step.label);
  const a = args(step, rootDir);
  return masker.text(clip(a ? `${step.kind} ${a}` : step.kind));
}
