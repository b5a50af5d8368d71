// `beacon run --energy`: what each device's app costs, from the simulator's energy records
// (beacon-sim --energy FILE: src/world/world_energy.c writes them): the average current, how long
// the profile's battery lasts at that rate, and each part's share with what in the app does it.
import * as fs from 'fs';

/** A device's summary as the world writes it ("energy-summary"). */
interface SummaryRecord {
  t: number;
  dev: string;
  ev: 'energy-summary';
  profile: string;
  avgMa: number;
  mah: number;
  poweredMs: number;
  capacityMah: number;
  percent: number;
  fixedMa?: number;
  partsMah: Record<string, number>;
  consumers: { part: string; set?: number; intervalMs: number; dbm?: number; windowMs?: number; mah: number }[];
  counts: { turns: number; flashWords: number; flashPages: number; rangings: number; syncs: number; modemQueries: number; txBytes: number; rxBytes: number };
  radio: { advTxUs: number; advTxUc: number; advRxUs: number; scanRxUs: number; scanRxUc: number; scanTxUs: number };
}

export interface EnergyRow {
  part: string;
  /** Share of the device's draw, 0..1. */
  share: number;
  /** Average current over the run, mA. */
  ma: number;
  mah: number;
  /** What in the app draws it. */
  what: string;
}

export interface DeviceEnergy {
  device: string;
  profile: string;
  /** Time the device was powered during the run, ms. */
  runMs: number;
  avgMa: number;
  capacityMah: number;
  /** How long a full battery lasts at the run's average current (null: it draws nothing). */
  lifeDays: number | null;
  percentLeft: number;
  /** Set when the scenario gave a constant current instead of the model. */
  fixedMa?: number;
  rows: EnergyRow[];
  radio: SummaryRecord['radio'];
}

const kb = (bytes: number): string => (bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`);
const dbm = (p: number): string => `${p > 0 ? '+' : ''}${p} dBm`;

function describe(part: string, s: SummaryRecord): string {
  const c = s.counts;
  switch (part) {
    case 'sleep': return 'sleeping between events (the floor)';
    case 'cpu': return `the CPU: ${c.turns} turns of the app`;
    case 'bleScan': {
      const scan = s.consumers.find((x) => x.part === 'bleScan');
      return scan ? `scanner: ${scan.windowMs} ms window every ${scan.intervalMs} ms` : 'scanning';
    }
    case 'modem': return `the modem: ${c.syncs} sync${c.syncs === 1 ? '' : 's'}, ${kb(c.txBytes)} sent, ${kb(c.rxBytes)} received${c.modemQueries ? `, ${c.modemQueries} network quer${c.modemQueries === 1 ? 'y' : 'ies'}` : ''}`;
    case 'gnss': return 'the GNSS receiver';
    case 'leds': return 'the LEDs';
    case 'imu': return 'the motion sensor';
    case 'nfc': return 'NFC fields';
    case 'uwb': return `UWB: ${c.rangings} ranging exchange${c.rangings === 1 ? '' : 's'}`;
    case 'flash': return `flash: ${c.flashWords} words written, ${c.flashPages} pages erased`;
    default: return part;
  }
}

/** The devices' reports from an energy file. */
export function readEnergy(file: string): DeviceEnergy[] {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const out: DeviceEnergy[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"ev":"energy-summary"')) continue;
    const s = JSON.parse(line) as SummaryRecord;
    // Averages over the time the device was powered (an empty battery draws nothing).
    const hours = s.poweredMs / 3_600_000;
    const total = Object.values(s.partsMah).reduce((a, b) => a + b, 0);
    const rows: EnergyRow[] = [];
    const row = (part: string, mah: number, what: string): void => {
      if (mah > 0) rows.push({ part, share: total > 0 ? mah / total : 0, ma: hours > 0 ? mah / hours : 0, mah, what });
    };
    for (const [part, mah] of Object.entries(s.partsMah)) {
      if (part !== 'bleAdv') row(part, mah, describe(part, s));
    }
    // Each advertising set on its own: which one costs is what the author changes.
    for (const a of s.consumers.filter((x) => x.part === 'bleAdv')) {
      row('bleAdv', a.mah, `advertiser ${a.set}: ${a.intervalMs} ms at ${dbm(a.dbm ?? 0)}`);
    }
    rows.sort((a, b) => b.mah - a.mah);
    const avgMa = s.fixedMa ?? s.avgMa;
    out.push({
      device: s.dev,
      profile: s.profile,
      runMs: s.poweredMs,
      avgMa,
      capacityMah: s.capacityMah,
      lifeDays: avgMa > 0 ? s.capacityMah / avgMa / 24 : null,
      percentLeft: s.percent,
      ...(s.fixedMa !== undefined ? { fixedMa: s.fixedMa } : {}),
      rows,
      radio: s.radio,
    });
  }
  return out;
}

function duration(ms: number): string {
  if (ms >= 86_400_000) return `${+(ms / 86_400_000).toFixed(1)} d`;
  if (ms >= 3_600_000) return `${+(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 60_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 1000).toFixed(1)} s`;
}

function life(days: number | null): string {
  if (days === null) return 'forever (it draws nothing)';
  if (days >= 730) return `${(days / 365).toFixed(1)} years`;
  if (days >= 2) return `${Math.round(days)} days`;
  return `${(days * 24).toFixed(1)} hours`;
}

const ma = (x: number): string => (x >= 1 ? `${x.toFixed(2)} mA` : x >= 0.001 ? `${(x * 1000).toFixed(1)} µA` : `${(x * 1e6).toFixed(0)} nA`);

/** The human report: a line per device and one per part that draws at least 0.1%. */
export function formatEnergy(devices: DeviceEnergy[]): string[] {
  const lines: string[] = [];
  for (const d of devices) {
    const how = d.fixedMa !== undefined ? ' (the scenario\'s constant current)' : '';
    lines.push(`[energy] ${d.device} (${d.profile}): ${ma(d.avgMa)} on average over ${duration(d.runMs)}${how}; a full ${d.capacityMah} mAh battery lasts ${life(d.lifeDays)} at that rate (${d.percentLeft.toFixed(1)}% left)`);
    for (const r of d.rows.filter((x) => x.share >= 0.001)) {
      lines.push(`[energy]   ${(r.share * 100).toFixed(1).padStart(5)}%  ${ma(r.ma).padStart(9)}  ${r.what}`);
    }
  }
  return lines;
}
