import { BoxflowError } from '../errors.js';
import type { LayoutTree } from './types.js';
import { parseAndroid } from './android.js';
import { parseHtml } from './html.js';

export interface ParseOptions {
  /** Skip detection. Default: Android when the document's root element is `<hierarchy>`. */
  format?: 'android' | 'html';
}

const kAndroidStart = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<hierarchy[\s>/]/;

export function detectFormat(content: string): 'android' | 'html' {
  return kAndroidStart.test(content) ? 'android' : 'html';
}

/** A `screen-layout` content (Android uiautomator XML or HTML) → LayoutTree. */
export function parseLayout(content: string, opts: ParseOptions = {}): LayoutTree {
  if (typeof content !== 'string') throw new BoxflowError('INVALID_ARGUMENT', `parseLayout takes the layout content as a string, not ${typeof content}`);
  const format = opts.format ?? detectFormat(content);
  if (format === 'android') return parseAndroid(content);
  if (format === 'html') return parseHtml(content);
  throw new BoxflowError('INVALID_ARGUMENT', `unknown layout format "${String(format)}" (android or html)`);
}
