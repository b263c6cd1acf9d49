// Where a step is, as a report shows it: relative to the project's root.
import { isAbsolute, relative, sep } from 'node:path';
import type { SourceLocation } from '../flow/types.js';

/** Paths in records are relative to the project root: reports and GitHub annotations need that. */
export function relativeSource(source: SourceLocation, rootDir: string): SourceLocation {
  if (!source?.file || !isAbsolute(source.file)) return source;
  const rel = relative(rootDir, source.file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? { ...source, file: rel.split(sep).join('/') } : source;
}
