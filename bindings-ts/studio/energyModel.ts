// What the energy panel of a device shows, kept from the world's energy records with no DOM (so
// node tests it): the battery's percent and the last record's average current for the gauge, and
// the draw by part over the run for the chart, in a bounded number of buckets.
//
// The records (src/world/world_energy.c, docs/world.md "Energy"): "energy", each part's average
// current between world ms `from` and `t` and the battery's percent at t; "energy-summary" at the
// end of a run, the run's charge by part and its largest consumers.

/** An "energy" record. */
export interface EnergyRecord {
  t: number;
  dev?: string;
  ev: 'energy';
  from: number;
  avgMa: number;
  ma: Record<string, number>;
  percent: number;
}

/** What the page shows of an "energy-summary" record. */
export interface EnergySummary {
  t: number;
  avgMa: number;
  mah: number;
  capacityMah: number;
  percent: number;
  partsMah: Record<string, number>;
  consumers: { part: string; set?: number; intervalMs?: number; windowMs?: number; dbm?: number; mah: number }[];
}

/** A span of world time and each part's average current over it. */
export interface Bucket {
  from: number;
  t: number;
  ma: Record<string, number>;
}

/**
 * The chart keeps at most this many buckets however long the run: a few hundred are as many as a
 * 300-pixel chart can show, and drawing them stays cheap at every frame of a run of weeks.
 */
export const MAX_BUCKETS = 240;

/**
 * Each part's colour, the same on every device (a part not listed, from a newer world, gets one
 * of the spare colours by its name).
 */
export const PART_COLOURS: Record<string, string> = {
  sleep: '#a9a9a9',
  cpu: '#e6194b',
  bleAdv: '#4363d8',
  bleScan: '#42d4f4',
  modem: '#f58231',
  gnss: '#3cb44b',
  leds: '#ffe119',
  imu: '#911eb4',
  nfc: '#f032e6',
  uwb: '#469990',
  flash: '#9a6324',
};
const SPARE_COLOURS = ['#800000', '#808000', '#000075', '#aaffc3', '#fabed4', '#dcbeff'];

export function partColour(part: string): string {
  if (PART_COLOURS[part]) return PART_COLOURS[part];
  let h = 0;
  for (const ch of part) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return SPARE_COLOURS[h % SPARE_COLOURS.length];
}

/** Merge two neighbouring buckets: the charge of each part is kept (currents weighted by time). */
export function mergeBuckets(a: Bucket, b: Bucket): Bucket {
  const da = a.t - a.from;
  const db = b.t - b.from;
  const ma: Record<string, number> = {};
  for (const p of new Set([...Object.keys(a.ma), ...Object.keys(b.ma)])) ma[p] = ((a.ma[p] ?? 0) * da + (b.ma[p] ?? 0) * db) / (da + db);
  return { from: a.from, t: b.t, ma };
}

/**
 * Bring the buckets back to `max` by merging, each time, the two neighbours that together span
 * the least time (the oldest of equals): records of a steady period end up coarsened evenly from
 * the oldest on, and a short record (the end of a run, a period cut by an idle stretch) joins a
 * neighbour before long ones do, so the buckets stay about as wide as one another on the chart's
 * time axis.
 */
export function compact(buckets: Bucket[], max = MAX_BUCKETS): void {
  while (buckets.length > max) {
    let best = 0;
    let bestSpan = Infinity;
    for (let k = 0; k + 1 < buckets.length; k++) {
      const span = buckets[k + 1].t - buckets[k].from;
      if (span < bestSpan) {
        best = k;
        bestSpan = span;
      }
    }
    buckets.splice(best, 2, mergeBuckets(buckets[best], buckets[best + 1]));
  }
}

/** One device's energy: fed its records in order, read by the energy panel when it draws. */
export class EnergyModel {
  /** The battery at the last record (the device's start value before any). */
  percent: number;
  /** The world ms of that percent. */
  private percentAt = 0;
  /** The average current of the last record, mA (undefined before the first). */
  avgMa: number | undefined;
  /** The span of the last record, world ms. */
  lastFrom = 0;
  lastT = 0;
  readonly buckets: Bucket[] = [];
  summary: EnergySummary | undefined;
  /** Counts changes, so the panel draws only when there is something new. */
  version = 0;

  constructor(
    startPercent: number,
    /** The battery's capacity, mAh (0: unknown), for the time left at the present draw. */
    readonly capacityMah = 0,
    private readonly max = MAX_BUCKETS,
  ) {
    this.percent = startPercent;
  }

  /** Take a record of the device; false when it is not an energy record. */
  add(r: { ev: string; [k: string]: unknown }): boolean {
    if (r.ev === 'energy') {
      const e = r as unknown as EnergyRecord;
      this.percent = e.percent;
      this.percentAt = e.t;
      this.avgMa = e.avgMa;
      this.lastFrom = e.from;
      this.lastT = e.t;
      if (e.t > e.from) {
        this.buckets.push({ from: e.from, t: e.t, ma: { ...e.ma } });
        compact(this.buckets, this.max);
      }
    } else if (r.ev === 'energy-summary') {
      this.summary = r as unknown as EnergySummary;
      this.percent = this.summary.percent;
      this.percentAt = this.summary.t;
    } else {
      return false;
    }
    this.version++;
    return true;
  }

  /**
   * The battery was set at world ms t (a scenario's or the slider's "battery" input): the gauge
   * shows it before the next record. The page parses the trace a frame after the energy records
   * it came with, so a later record's percent must win over an older input's.
   */
  setPercent(percent: number, t: number): void {
    if (t < this.percentAt) return;
    this.percent = percent;
    this.percentAt = t;
    this.version++;
  }

  /**
   * The parts the chart draws, largest charge first, with their average current over the
   * buckets' time: parts that drew nothing are left out.
   */
  parts(): { part: string; ma: number }[] {
    if (this.buckets.length === 0) return [];
    const charge = new Map<string, number>();
    for (const b of this.buckets) for (const [p, ma] of Object.entries(b.ma)) charge.set(p, (charge.get(p) ?? 0) + ma * (b.t - b.from));
    const span = this.buckets[this.buckets.length - 1].t - this.buckets[0].from;
    return [...charge.entries()]
      .filter(([, c]) => c > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([part, c]) => ({ part, ma: c / span }));
  }

  /** Hours a battery at the present percent lasts at the last record's draw (undefined: unknown). */
  hoursLeft(): number | undefined {
    if (!this.capacityMah || this.avgMa === undefined || !(this.avgMa > 0)) return undefined;
    return ((this.percent / 100) * this.capacityMah) / this.avgMa;
  }
}

/** A current as a person reads it: µA below 1 mA, three significant digits. */
export function formatCurrent(ma: number): string {
  if (ma === 0) return '0 µA';
  const sig = (v: number): string => (Math.abs(v) >= 1000 ? v.toFixed(0) : String(Number(v.toPrecision(3))));
  return Math.abs(ma) >= 1 ? `${sig(ma)} mA` : `${sig(ma * 1000)} µA`;
}

/**
 * A battery's percent, cut (never rounded up) to as many decimals as show that it is below 100
 * (up to four): a beacon drains a thousandth of a percent in minutes, and "100.0 %" after a run
 * would say it drew nothing.
 */
export function formatPercent(p: number): string {
  if (p >= 100) return '100';
  const d = Math.min(4, Math.max(1, Math.ceil(-Math.log10(100 - p))));
  // The epsilon keeps 99.95 (stored as 99.9499...) from showing as 99.94.
  return (Math.floor(p * 10 ** d + 1e-9) / 10 ** d).toFixed(d);
}

/** A duration in hours, in the unit that suits it. */
export function formatHours(h: number): string {
  if (h < 1) return `${Math.max(1, Math.round(h * 60))} min`;
  if (h < 48) return `${Number(h.toPrecision(2))} h`;
  if (h < 2 * 365 * 24) return `${Math.round(h / 24)} d`;
  return `${Number((h / 24 / 365).toPrecision(2))} years`;
}

/** World ms as the chart's axis reads it. */
export function formatWorldTime(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Number(s.toFixed(1))} s`;
  if (s < 7200) return `${Number((s / 60).toFixed(1))} min`;
  if (s < 172800) return `${Number((s / 3600).toFixed(1))} h`;
  return `${Number((s / 86400).toFixed(1))} d`;
}
