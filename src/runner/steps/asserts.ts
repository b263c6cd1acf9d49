// Layout assertions: poll the layout until the condition holds or the step times out.
import { BoxflowError } from '../../errors.js';
import { describeSelector, query, textMatcher, type TextMatcher } from '../../layout/index.js';
import type { LayoutNode, LayoutTree } from '../../layout/types.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import { pollUntil } from '../poll.js';
import { attachEvidence, findVisible } from './target.js';

export const assertVisible: StepHandler<'assertVisible'> = handler(['selector'], async (step, run) => {
  const node = await findVisible(run, step.selector).catch((err: unknown) => {
    if (BoxflowError.is(err) && err.code === 'ELEMENT_NOT_FOUND') throw new BoxflowError('ASSERT_LAYOUT', err.message);
    throw err;
  });
  run.record.message = `visible: ${label(node, run)}`;
});

export const assertNotVisible: StepHandler<'assertNotVisible'> = handler(['selector'], async (step, run) => {
  const { selector } = step;
  let last: LayoutTree | undefined;
  let seen: LayoutNode | undefined;
  const gone = await pollUntil(async () => {
    last = await run.rt.layout.tree(run.signal);
    seen = query(last, selector)[0];
    return seen ? undefined : true;
  }, run.deadline, run.signal);
  if (gone.value) return;
  if (BoxflowError.is(gone.lastError)) throw gone.lastError;
  await attachEvidence(run, selector, last);
  throw new BoxflowError('ASSERT_LAYOUT', `${describeSelector(selector)} is still visible after ${run.timeoutMs} ms${seen ? `: ${label(seen, run)}` : ''}`);
});

export const assertLayout: StepHandler<'assertLayout'> = handler(['selector', 'text', 'attributes'], async (step, run) => {
  const { selector } = step;
  const want = { count: step.count, text: step.text, attributes: step.attributes };
  // Compiled before polling, so a bad /regex/ fails at once rather than at the timeout.
  const textOk = want.text === undefined ? undefined : textMatcher(want.text);
  let last: LayoutTree | undefined;
  let problem = '';
  const ok = await pollUntil(async () => {
    last = await run.rt.layout.tree(run.signal);
    const nodes = query(last, selector);
    problem = check(nodes, want, textOk);
    return problem ? undefined : nodes.length;
  }, run.deadline, run.signal);
  if (ok.value !== undefined) {
    run.record.message = `${ok.value} match${ok.value === 1 ? '' : 'es'} for ${describeSelector(selector)}`;
    return;
  }
  if (BoxflowError.is(ok.lastError)) throw ok.lastError;
  await attachEvidence(run, selector, last);
  throw new BoxflowError('ASSERT_LAYOUT', `${describeSelector(selector)}: ${problem} (after ${run.timeoutMs} ms)`);
});

function check(nodes: LayoutNode[], want: { count?: number; text?: string; attributes?: Record<string, string> }, textOk: TextMatcher | undefined): string {
  if (want.count !== undefined) {
    if (nodes.length !== want.count) return `expected ${want.count} visible match${want.count === 1 ? '' : 'es'}, found ${nodes.length}`;
    if (want.count === 0) return '';
  }
  const node = nodes[0];
  if (!node) return 'no visible element matches';
  if (textOk && !textOk(node.text)) return `text is ${JSON.stringify(node.text)}, expected ${want.text}`;
  for (const [k, v] of Object.entries(want.attributes ?? {})) {
    const actual = node.attributes[k];
    if (actual !== String(v)) return `attribute ${k} is ${actual === undefined ? 'absent' : JSON.stringify(actual)}, expected ${JSON.stringify(String(v))}`;
  }
  return '';
}

/** The node for a message: its text masked, then cut (a secret cut short is one no masker finds afterwards). */
function label(n: LayoutNode, run: StepRun): string {
  return `<${n.tag}>${n.text ? ` "${run.rt.masker.text(n.text).slice(0, 60)}"` : n.desc ? ` [${n.desc}]` : n.id ? ` #${n.id}` : ''}`;
}
