// Diagnostics of a micro-app build, one shape for every stage (type check, bundling, the ES5
// check, the package tool) so that callers print them the same way: file:line:column: message.
import * as path from 'path';

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  message: string;
  /** Absolute path of the file the diagnostic is about, when there is one. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** Short code of the producer, e.g. TS2322 or UNRESOLVED_IMPORT. */
  code?: string;
}

/** Paths under the current directory are shown relative to it, others in full. */
export function displayPath(file: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

export function formatDiagnostic(d: Diagnostic, cwd?: string): string {
  let where = '';
  if (d.file) {
    where = displayPath(d.file, cwd);
    if (d.line !== undefined) {
      where += `:${d.line}`;
      if (d.column !== undefined) where += `:${d.column}`;
    }
    where += ': ';
  }
  const code = d.code ? ` ${d.code}` : '';
  // Continuation lines of a multi-line message are indented under the first.
  const message = d.message.replace(/\n/g, '\n  ');
  return `${where}${d.severity}${code}: ${message}`;
}

/** Diagnostics in file and position order; ones without a file first, otherwise stable. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return list
    .map((d, i) => ({ d, i }))
    .sort((a, b) => {
      const fa = a.d.file ?? '';
      const fb = b.d.file ?? '';
      if (fa !== fb) return fa < fb ? -1 : 1;
      const la = a.d.line ?? 0;
      const lb = b.d.line ?? 0;
      if (la !== lb) return la - lb;
      const ca = a.d.column ?? 0;
      const cb = b.d.column ?? 0;
      return ca !== cb ? ca - cb : a.i - b.i;
    })
    .map((x) => x.d);
}

/** A build that did not produce a package. Carries every error found, not just the first. */
export class BuildError extends Error {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[] | string) {
    const list: Diagnostic[] =
      typeof diagnostics === 'string' ? [{ severity: 'error', message: diagnostics }] : [...diagnostics];
    super(list.map((d) => formatDiagnostic(d)).join('\n'));
    this.name = 'BuildError';
    this.diagnostics = list;
  }

  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === 'error').length;
  }
}
