// `beacon run --cloud-code handlers.js`: the run's cloud-code handler, called after the run for
// each event the run's cloud stored, in the order of the trace once mergeTrace placed them (the
// simulated time at which the cloud stored each, the end of the sync that carried it), one call
// at a time. The handler runs in the sandbox the cloud uses (codeSandbox.ts), with Date.now() at
// the event's device time and Math.random seeded by the event, so two runs of one app print the
// same. What it printed goes into the trace as a `cloud-code` record just after the event's
// `cloud-event` record, and onto stdout.
import { CodeSandbox, eventSeed } from '../cloud/codeSandbox';
import type { JsonValue } from '../cloud/cbor';
import { webhookBody } from '../cloud/webhooks';

interface EventRecord {
  t: number;
  dev: string;
  ev: string;
  stream: number;
  seq: number;
  type: string;
  ts: number;
  variable?: boolean;
  payload: JsonValue;
}

export interface CloudCodeResult {
  /** The trace with the cloud-code records. */
  text: string;
  /** What to print: each line the handler printed, and each failure, with the event's time and device. */
  lines: string[];
  calls: number;
  failed: number;
}

/** Simulated time as the simulator's info lines show it: seconds with milliseconds. */
function seconds(t: number): string {
  return `${(t / 1000).toFixed(3)} s`;
}

export async function runCloudCode(text: string, devices: readonly string[], ids: readonly string[], sandbox: CodeSandbox): Promise<CloudCodeResult> {
  const index = new Map(devices.map((d, i) => [d, i]));
  const out: string[] = [];
  const lines: string[] = [];
  let calls = 0;
  let failed = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    out.push(line);
    if (!line.includes('"cloud-event"')) continue;
    let r: EventRecord;
    try {
      r = JSON.parse(line) as EventRecord;
    } catch {
      continue;
    }
    const i = index.get(r.dev);
    if (r.ev !== 'cloud-event' || i === undefined) continue;
    const deviceId = ids[i];
    const event = webhookBody(deviceId, r.stream, { seq: r.seq, ts: r.ts, type: r.type, payload: r.payload, variable: r.variable === true });
    // The stream is new at every run with erased flash: the seed leaves it out, so that it
    // stays the same from run to run.
    const o = await sandbox.call(event, { now: r.ts, seed: eventSeed(`${deviceId}:${r.type}:${r.seq}:${r.ts}`) });
    calls++;
    const rec: Record<string, unknown> = { t: r.t, dev: r.dev, ev: 'cloud-code', seq: r.seq, type: r.type, ok: o.ok, output: o.output };
    const at = `[cloud code ${seconds(r.t)} ${r.dev}]`;
    for (const l of o.output.split('\n')) if (l !== '') lines.push(`${at} ${l}`);
    if (!o.ok) {
      failed++;
      rec.error = o.reason;
      lines.push(`${at} ${r.type} #${r.seq} failed: ${o.reason}`);
    }
    out.push(JSON.stringify(rec));
  }
  return { text: out.map((l) => l + '\n').join(''), lines, calls, failed };
}
