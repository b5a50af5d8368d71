// What the studio page's panels share: the page's state, its elements and the server's API.
import type { SourceMapV3 } from '../src/compiler/sourceMap';
import type { DeviceView } from './deviceView';
import type { SimWorker } from './simWorker';

export interface Info {
  apiVersions: string[];
  api: string;
  engines: string[];
  examples: string[];
  app?: { name: string; source: string };
  world?: { name: string; text: string };
}

export interface BuildReply {
  ok: boolean;
  package?: string;
  map?: SourceMapV3;
  report?: string;
  diagnostics: { severity: string; message: string; line?: number; column?: number; text: string }[];
}

export interface Lowered {
  script: string;
  durationMs?: number;
  /** `app`: the file the scenario names for the device (built by the server, api/build-app). */
  devices: { name: string; app?: string }[];
  /** The apps the scenario deploys through the loopback cloud, K-th for `cloud-deploy K` (api/build-deploy). */
  deploys?: string[];
}

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export async function post<T>(url: string, body: unknown): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await r.json()) as T;
}

export interface Pkg {
  bytes: Uint8Array;
  name: string;
  map?: SourceMapV3;
  source?: string;
  api: string;
  engine: string;
}

export const state = {
  api: '0.2.6',
  apiVersions: [] as string[],
  engine: 'duktape',
  name: 'app.ts',
  scenario: undefined as { name: string; text: string; lowered: Lowered } | undefined,
  /** The package Run uses: built from the editor's text, or dropped onto the page. */
  pkg: undefined as Pkg | undefined,
  /** Packages of the devices whose scenario entry names its own app, by device name. */
  devicePkgs: new Map<string, Pkg>(),
  world: undefined as SimWorker | undefined,
  /** World time of the latest output the world gave. */
  now: 0,
  running: false,
  views: [] as DeviceView[],
  stdout: '',
  stderr: '',
  trace: '',
  ended: undefined as string | undefined,
  frames: [] as number[],
  /** performance.now() when Run was clicked and when the run ended (shown): for the benchmark. */
  runClickMs: 0,
  runEndMs: 0,
  /** Real time the world's own work took in the run (in its worker). */
  worldBusyMs: 0,
  /** Counts runs, so a slice or frame of a run that was stopped does nothing. */
  runId: 0,
  /** performance.now() when the page became usable (editor, examples and simulator loaded). */
  readyMs: 0,
};

/** An element of the page with attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

export function setStatus(text: string): void {
  $('status').textContent = text;
}
