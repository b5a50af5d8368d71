// The progress of a long `beacon run` in a terminal: beacon-sim writes its figures to a pipe
// (--progress-fd, as its stderr is a pipe here) and this keeps one line on the terminal's stderr
// up to date, wiped before any other message and at the end. Its words are those of the studio
// page's readout (world/progress.ts).
import { progressText } from '../world/progress';

/** The figures of one "progress DEVICE_MS REAL_MS ALIVE DEVICES" line of beacon-sim. */
export interface Progress {
  deviceMs: number;
  realMs: number;
  alive: number;
  devices: number;
}

export function parseProgress(line: string): Progress | undefined {
  const m = /^progress (\d+) (\d+) (\d+) (\d+)$/.exec(line.trim());
  if (!m) return undefined;
  return { deviceMs: Number(m[1]), realMs: Number(m[2]), alive: Number(m[3]), devices: Number(m[4]) };
}

export function formatProgress(p: Progress): string {
  return progressText({ deviceMs: p.deviceMs, speed: p.realMs > 0 ? p.deviceMs / p.realMs : 0, alive: p.alive, devices: p.devices });
}

/** A run shorter than this shows no progress. */
export const PROGRESS_AFTER_MS = 1000;

/** The line on a terminal. */
export class ProgressLine {
  private shown = false;
  private pending = '';
  private readonly started: number;

  constructor(
    private readonly stream: { write(text: string): unknown },
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** Bytes from beacon-sim's progress pipe. */
  feed(chunk: Buffer): void {
    this.pending += chunk.toString('utf8');
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    const last = lines.map(parseProgress).filter((p): p is Progress => p !== undefined).pop();
    if (last && this.now() - this.started >= PROGRESS_AFTER_MS) {
      this.stream.write(`\r\x1b[K${formatProgress(last)}`);
      this.shown = true;
    }
  }

  /** Before another message, and at the end. */
  clear(): void {
    if (!this.shown) return;
    this.stream.write('\r\x1b[K');
    this.shown = false;
  }
}
