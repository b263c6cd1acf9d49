// The box's clipboard, through the Box API's clipboard action (GET/POST /boxes/{id}/actions/clipboard):
// setDevice's clipboard puts the text there as well as where pasteText and ${maestro.copiedText}
// read it, and assertClipboard reads it back. boxflow serve offers the clipboard on Linux boxes (the
// browser's); an Android box answers 422, and the step says so.
import { BoxApiError } from '../../api/client.js';
import { BoxflowError } from '../../errors.js';
import { textMatcher } from '../../layout/index.js';
import { pollUntil } from '../poll.js';
import { handler, type StepHandler, type StepRun } from './types.js';

const callTimeout = (run: StepRun) => Math.max(1_000, Math.round(run.deadline - performance.now()));

/** Why the service cannot give this box a clipboard (its 404/405/422/501 message), or undefined when the error is another one. */
function noClipboard(err: unknown): string | undefined {
  if (err instanceof BoxApiError && [404, 405, 422, 501].includes(err.httpStatus ?? 0) && err.serverCode !== 'BOX_NOT_FOUND') return `${err.httpStatus}: ${err.message}`;
  return undefined;
}

/**
 * Puts `text` on the box's clipboard. Where the service has no clipboard for this box, the text is
 * still what pasteText types, and the returned note says the box's own clipboard was left alone.
 */
export async function putOnClipboard(run: StepRun, text: string): Promise<string> {
  try {
    await run.rt.client.setClipboard(run.rt.box.id, { content: text }, { signal: run.signal, timeoutMs: callTimeout(run) });
    return `clipboard ${JSON.stringify(run.rt.masker.text(text))}`;
  } catch (err) {
    const why = noClipboard(err);
    if (why === undefined) throw err;
    return `clipboard ${JSON.stringify(run.rt.masker.text(text))} for pasteText only: the box's own clipboard is not set (${why})`;
  }
}

/**
 * Waits until the box's clipboard holds this text (exact, or /regex/ searched), reading it through
 * the clipboard action. On a Linux box of boxflow serve each read is a paste (Control+V) the page
 * sees as key events, cancelled before it inserts anything; reads back off as every wait does.
 */
export const assertClipboard: StepHandler<'assertClipboard'> = handler(['text'], async (step, run) => {
  const want = step.text;
  const matches = textMatcher(want);
  let actual = '';
  let refused: BoxflowError | undefined;
  const ok = await pollUntil(async () => {
    try {
      actual = await run.rt.client.getClipboard(run.rt.box.id, { signal: run.signal, timeoutMs: callTimeout(run) });
    } catch (err) {
      const why = noClipboard(err);
      if (why === undefined) throw err;
      refused = new BoxflowError('UNPROCESSABLE', `assertClipboard: box ${run.rt.box.id} (${run.rt.box.type}) gives no clipboard to read (${why})`, { cause: err });
      return false;
    }
    return matches(actual) ? true : undefined;
  }, run.deadline, run.signal);
  if (refused) throw refused;
  if (ok.value === undefined && ok.lastError) throw ok.lastError;
  const shown = (t: string) => JSON.stringify(run.rt.masker.text(t));
  if (!ok.value) throw new BoxflowError('ASSERT_CLIPBOARD', `the clipboard holds ${shown(actual)}, expected ${shown(want)} (after ${run.timeoutMs} ms)`);
  run.record.message = `clipboard ${shown(actual)}`;
});
