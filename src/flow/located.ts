import { BoxflowError, type ErrorCode } from '../errors.js';
import { codeFrame } from './codeFrame.js';
import { formatPath } from './validate.js';
import type { FlowIssue } from './parts.js';
import type { SourceLocation } from './types.js';

export interface FlowErrorDetails {
  file: string;
  line: number;
  column: number;
  /** The key (or bare step name) at fault, when there is one. */
  key?: string;
  suggestion?: string;
  /** The code frame also printed below the first line of the message. */
  frame?: string;
}

/** `file:line:col: message`, then a code frame when the source text is known. */
export function locatedError(
  code: ErrorCode,
  at: SourceLocation,
  message: string,
  text: string | undefined,
  extra: { key?: string; suggestion?: string; cause?: unknown } = {},
): BoxflowError {
  const frame = text === undefined ? undefined : codeFrame(text, at.line, at.column);
  const details: FlowErrorDetails = { file: at.file, line: at.line, column: at.column };
  if (extra.key !== undefined) details.key = extra.key;
  if (extra.suggestion !== undefined) details.suggestion = extra.suggestion;
  if (frame !== undefined) details.frame = frame;
  const head = `${at.file}:${at.line}:${at.column}: ${message}`;
  return new BoxflowError(code, frame ? `${head}\n\n${frame}` : head, {
    details,
    ...(extra.cause !== undefined ? { cause: extra.cause } : {}),
  });
}

export function issueError(issue: FlowIssue, at: SourceLocation, text: string | undefined): BoxflowError {
  const prefix = formatPath(issue.options.prefix ?? issue.path);
  const key = issue.options.key ?? [...issue.path].reverse().find((s): s is string => typeof s === 'string');
  return locatedError(issue.options.code ?? 'FLOW_SCHEMA', at, prefix ? `${prefix}: ${issue.message}` : issue.message, text, {
    ...(key !== undefined ? { key } : {}),
    ...(issue.options.suggestion !== undefined ? { suggestion: issue.options.suggestion } : {}),
  });
}

/** One error for several located issues of a file: each with its own location and code frame. */
export function combinedError(errors: BoxflowError[]): BoxflowError {
  if (errors.length === 1) return errors[0]!;
  const details = errors.map((e) => e.details as FlowErrorDetails);
  return new BoxflowError(errors[0]!.code, `${errors.length} problems:\n\n${errors.map((e) => e.message).join('\n\n')}`, {
    details: { ...details[0], frame: undefined, issues: details },
  });
}
