// Lines a device printed, as they come, with waits that fail with what was expected and what
// the device printed instead.

/** What to look for in a line: a substring, a pattern or a predicate. */
export type LineMatcher = string | RegExp | ((line: string) => boolean);

export function describeMatcher(m: LineMatcher): string {
  if (typeof m === 'string') return JSON.stringify(m);
  if (m instanceof RegExp) return String(m);
  return m.name ? `a line for which ${m.name}() holds` : 'a line for the predicate';
}

export function lineMatches(line: string, m: LineMatcher): boolean {
  if (typeof m === 'string') return line.includes(m);
  if (m instanceof RegExp) return m.test(line);
  return m(line);
}

/** The last lines of a list, for a failure message. */
export function showLines(lines: readonly string[], max = 20): string {
  if (lines.length === 0) return '  (nothing)';
  const shown = lines.slice(-max).map((l) => `  | ${l}`);
  if (lines.length > max) shown.unshift(`  ... ${lines.length - max} earlier lines`);
  return shown.join('\n');
}

export class ConsoleLines {
  readonly lines: string[] = [];
  private waiters: { from: number; m: LineMatcher; resolve: (l: string) => void }[] = [];
  private closedWhy: string | undefined;
  private pending = '';

  /** Feed raw text; complete lines are recorded. */
  feed(text: string): void {
    this.pending += text;
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      this.push(line);
    }
  }

  push(line: string): void {
    this.lines.push(line);
    const index = this.lines.length - 1;
    this.waiters = this.waiters.filter((w) => {
      if (index >= w.from && lineMatches(line, w.m)) {
        w.resolve(line);
        return false;
      }
      return true;
    });
  }

  /** No more lines will come (the device ended): waits still open fail. */
  close(why: string): void {
    this.closedWhy = why;
  }

  /**
   * The first line from index `from` on that matches: at once if it is there, else when it comes.
   * Fails after timeoutMs (a bound for a broken device, not a measurement) with the expected line
   * and the lines the device printed.
   */
  waitFor(m: LineMatcher, from = 0, timeoutMs = 10_000): Promise<string> {
    for (let i = from; i < this.lines.length; i++) {
      if (lineMatches(this.lines[i], m)) return Promise.resolve(this.lines[i]);
    }
    return new Promise((resolve, reject) => {
      const waiter = { from, m, resolve: (l: string) => {
        clearTimeout(timer);
        resolve(l);
      } };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const why = this.closedWhy ? ` (${this.closedWhy})` : '';
        reject(new Error(`expected the console to show ${describeMatcher(m)} within ${timeoutMs} ms${why}; it showed:\n${showLines(this.lines.slice(from))}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}
