// What the tests that run the CLI as a child share: a child process run without blocking this one (the embedded broker
// and the store live in this process and must answer meanwhile), and every event the store holds
// for a device, page by page.
import { spawn } from 'child_process';
import type { CloudStore, StoredEvent } from '../src/cloud';

export interface ChildResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `command args` (in cwd), collecting its output; killed after timeoutMs. A test whose own
 * process may hold the host build's lock (an in-process server building an app) must run the CLI
 * this way, not with execFileSync: a blocked event loop never releases the lock the child waits on.
 */
export function runChild(command: string, args: string[], timeoutMs: number, cwd?: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Every event the store holds for a device, newest first, across the store's pages. */
export async function allEvents(store: CloudStore, device: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await store.events(device, { limit: 1000, before });
    out.push(...page.events);
    if (!page.next) return out;
    before = page.next;
  }
}
