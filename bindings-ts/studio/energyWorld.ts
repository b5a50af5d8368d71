// The energy model's side of the world's thread (worker.ts): it turns the world's energy records
// on for each run of the page, ends them with the run, and tells them apart from the rest of the
// trace. They reach the page beside the trace, not in it, so the page's trace stays byte for byte
// `beacon run --trace`'s (which has none without --energy).
import type { SimFactory, SimModule } from '../src/studio/world';

/**
 * World time between two records of a device: often enough for the gauge to follow a run at
 * real time, few enough to cost nothing in a run of weeks (the page merges old ones).
 */
export const ENERGY_PERIOD_MS = 10_000;

/** studio_device_value()'s battery capacity (src/port/wasm/studio_main.c). */
const VALUE_CAPACITY_MAH = 13;

/**
 * Whether a trace record (one JSON line) is an energy record. Every record begins with its time,
 * its device and its kind (`{"t":..,"dev":"..","ev":"..."`), and no escaped string holds `,"ev":"`,
 * so the first such key is the record's own: a payload or a printed text that mentions "energy"
 * is not mistaken for one.
 */
export function isEnergyRecord(json: string): boolean {
  const k = json.indexOf(',"ev":"');
  return k >= 0 && (json.startsWith('energy"', k + 7) || json.startsWith('energy-summary"', k + 7));
}

type Fn = (...args: unknown[]) => unknown;

/** The exports WasmWorld does not wrap: the energy records and the battery's capacity. */
export class WorldEnergy {
  private recordsFn: Fn | undefined;
  private finishFn: Fn | undefined;
  private valueFn: Fn | undefined;

  /** The factory to give WasmWorld.create: it makes the same module, and keeps it here too. */
  wrap(factory: SimFactory): SimFactory {
    return async (callbacks) => {
      const mod = await factory(callbacks);
      this.bind(mod);
      return mod;
    };
  }

  private bind(mod: SimModule): void {
    // A module built before the energy exports (its sources unchanged since) has no records:
    // the page then shows none rather than failing.
    if (typeof (mod as unknown as Record<string, unknown>)._studio_energy_records !== 'function') return;
    this.recordsFn = mod.cwrap('studio_energy_records', null, ['number']);
    this.finishFn = mod.cwrap('studio_energy_finish', null, []);
    this.valueFn = mod.cwrap('studio_device_value', 'number', ['number', 'number']);
  }

  /** Records every period from now on: after WasmWorld.open (a new world has them off). */
  start(periodMs = ENERGY_PERIOD_MS): void {
    this.recordsFn?.(periodMs);
  }

  /** Each device's last period and summary: where the run ends or stops, before close(). */
  finish(): void {
    this.finishFn?.();
  }

  capacityMah(index: number): number {
    return (this.valueFn?.(index, VALUE_CAPACITY_MAH) as number | undefined) ?? 0;
  }
}
