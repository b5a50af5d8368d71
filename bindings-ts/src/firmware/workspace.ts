// Where the firmware's toolchain is, for the CLI and the tests: the rules of
// scripts/lib/workspace.sh, read from that script itself so that the scripts and the `beacon`
// commands can never disagree (ZEPHYR_BASE and the like when set, else the west workspace around
// the repository, else ~/zephyrproject). Nothing here fetches or builds a part.
import { execFileSync } from 'child_process';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';

/** The parts of a workspace: Zephyr 3.7, the JerryScript 3.0 sources, BabbleSim built. */
export type WorkspacePart = 'zephyr' | 'jerryscript' | 'bsim';

export interface Workspace {
  /** The variables the script found (ZEPHYR_BASE, JERRYSCRIPT_DIR, BSIM_OUT_PATH, ...). */
  env: Record<string, string>;
  /** For each missing part, the one line that says what, where it was looked for and how to get it. */
  missing: Partial<Record<WorkspacePart, string>>;
}

let found: Workspace | undefined;

/** The workspace as scripts/lib/workspace.sh finds it from this process's environment (once). */
export function workspace(): Workspace {
  if (found !== undefined) return found;
  const script = path.join(path.dirname(toolsRoot()), 'scripts', 'lib', 'workspace.sh');
  const ws: Workspace = { env: {}, missing: {} };
  let out: string;
  try {
    out = execFileSync('bash', [script, '--print'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const why = `the workspace could not be looked for (${script}: ${(e as Error).message.split('\n')[0]})`;
    ws.missing = { zephyr: why, jerryscript: why, bsim: why };
    return (found = ws);
  }
  for (const line of out.split('\n')) {
    const exported = /^export (\w+)=(.*)$/.exec(line);
    if (exported) ws.env[exported[1]] = exported[2];
    const missing = /^missing (zephyr|jerryscript|bsim): (.*)$/.exec(line);
    if (missing) ws.missing[missing[1] as WorkspacePart] = missing[2];
  }
  return (found = ws);
}

/** False when every part is there; else the first missing part's line (a test's skip reason). */
export function workspaceMissing(...parts: WorkspacePart[]): string | false {
  const ws = workspace();
  for (const part of parts) if (ws.missing[part] !== undefined) return ws.missing[part]!;
  return false;
}

/** The JerryScript source tree, or undefined (workspaceMissing('jerryscript') says why). */
export function jerryscriptDir(): string | undefined {
  return workspace().env.JERRYSCRIPT_DIR;
}
