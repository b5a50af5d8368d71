// The world's thread from the page's side: one worker per engine, running the simulator compiled
// to WebAssembly (worker.ts).
import type { FromWorker, ToWorker } from './worker';

/**
 * The world's thread (worker.ts): requests with replies (open, check, install) and messages
 * (speed, inputs, stop); the world's output comes back in batches, one per slice it ran.
 */
export class SimWorker {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: Extract<FromWorker, { op: 'reply' }>) => void>();
  private readonly loaded: Promise<void>;
  onBatch: (b: Extract<FromWorker, { op: 'batch' }>) => void = () => {};

  /**
   * The page fetches the worker's script, the engine's emscripten glue and the module, and
   * starts the worker from a blob of the two scripts: the worker then asks the network for
   * nothing (and nothing a worker fetches escapes what the page's own requests show).
   */
  static async create(engine: string): Promise<SimWorker> {
    const text = async (url: string): Promise<string> => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`cannot load ${url}`);
      return r.text();
    };
    const [glue, script, wasm] = await Promise.all([text(`wasm/beacon-sim-${engine}.js`), text('worker.js'), fetch(`wasm/beacon-sim-${engine}.wasm`).then((r) => r.arrayBuffer())]);
    const url = URL.createObjectURL(new Blob([glue, '\n', script], { type: 'text/javascript' }));
    const sim = new SimWorker(new Worker(url), engine, wasm);
    await sim.loaded;
    URL.revokeObjectURL(url);
    return sim;
  }

  private constructor(
    private readonly worker: Worker,
    engine: string,
    wasm: ArrayBuffer,
  ) {
    this.loaded = new Promise((resolve, reject) => {
      this.worker.onmessage = (e: MessageEvent<FromWorker>) => {
        const m = e.data;
        if (m.op === 'loaded') resolve();
        else if (m.op === 'batch') this.onBatch(m);
        else if (m.id === 0) reject(new Error(m.error));
        else {
          this.waiting.get(m.id)?.(m);
          this.waiting.delete(m.id);
        }
      };
      this.worker.onerror = (e) => reject(new Error(e.message));
    });
    this.worker.postMessage({ op: 'load', engine, wasm } satisfies ToWorker, [wasm]);
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  request(m: ToWorker & { id: number }): Promise<Extract<FromWorker, { op: 'reply' }>> {
    return new Promise((resolve) => {
      this.waiting.set(m.id, resolve);
      this.post(m);
    });
  }

  id(): number {
    return this.nextId++;
  }
}

const worlds = new Map<string, Promise<SimWorker>>();

/** One world thread per engine, made once. */
export function worldFor(engine: string): Promise<SimWorker> {
  let w = worlds.get(engine);
  if (!w) {
    w = SimWorker.create(engine);
    worlds.set(engine, w);
  }
  return w;
}
