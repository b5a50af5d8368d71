// The load generator's figures as each worker counts them (loadWorker.ts) and as the
// coordinator adds them up (loadGen.ts). Acknowledgement latencies go into a histogram of
// logarithmic buckets, 2 % wide, so that a million batches cost a few kilobytes and the
// workers' histograms add up exactly.

/** Buckets per factor e: bucket i holds latencies of e^(i/50) to e^((i+1)/50) microseconds. */
const PER_E = 50;
/** Up to e^22 µs (an hour): more than any timeout allows. */
export const HIST_BUCKETS = 22 * PER_E;

export interface WorkerStats {
  /** When the first connection was opened, epoch ms (null: none yet). */
  firstConnect: number | null;
  /** When the last acknowledgement arrived, epoch ms. */
  lastAck: number | null;
  /** Events the devices enqueued. */
  generated: number;
  /** Events deleted from the devices' queues by an acknowledgement (each counted once). */
  acked: number;
  /** Syncs that ended with every event acknowledged and the last message frame received. */
  syncs: number;
  /** Syncs that failed. */
  failedSyncs: number;
  /** Syncs started again after a failed one (the device's unacknowledged events resent). */
  reconnects: number;
  /** Failed syncs by kind (connack_refused, timeout, connection_closed, ...). */
  errors: Record<string, number>;
  /** The first failure of each kind, in words. */
  samples: Record<string, string>;
  /** Acknowledgement latency histogram (PUBLISH of a batch to its acknowledgement). */
  hist: number[];
  latencyMaxMs: number;
  /** Connections open now, and at most. */
  open: number;
  peakOpen: number;
  /** Devices with events still unacknowledged (meaningful when the worker is done). */
  unfinished: number;
  /** The worker process's peak resident set, kB. */
  maxRssKb: number;
  /** The worker process's CPU time (user and system), ms. */
  cpuMs: number;
}

export function emptyStats(): WorkerStats {
  return {
    firstConnect: null,
    lastAck: null,
    generated: 0,
    acked: 0,
    syncs: 0,
    failedSyncs: 0,
    reconnects: 0,
    errors: {},
    samples: {},
    hist: new Array<number>(HIST_BUCKETS).fill(0),
    latencyMaxMs: 0,
    open: 0,
    peakOpen: 0,
    unfinished: 0,
    maxRssKb: 0,
    cpuMs: 0,
  };
}

export function recordLatency(s: WorkerStats, ms: number): void {
  const us = Math.max(1, ms * 1000);
  s.hist[Math.min(HIST_BUCKETS - 1, Math.floor(Math.log(us) * PER_E))]++;
  if (ms > s.latencyMaxMs) s.latencyMaxMs = ms;
}

export function recordError(s: WorkerStats, kind: string, detail: string): void {
  s.failedSyncs++;
  s.errors[kind] = (s.errors[kind] ?? 0) + 1;
  s.samples[kind] ??= detail;
}

/** The latency at quantile `q` (0..1) in ms, the middle of its bucket; undefined without samples. */
export function percentile(hist: readonly number[], q: number, maxMs: number): number | undefined {
  const total = hist.reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const want = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i];
    if (seen >= want) return Math.min(maxMs, Math.exp((i + 0.5) / PER_E) / 1000);
  }
  return maxMs;
}

const earliest = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
const latest = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** The sum of several workers' figures (peakOpen: the sum of their peaks, an upper bound). */
export function mergeStats(list: readonly WorkerStats[]): WorkerStats {
  const m = emptyStats();
  for (const s of list) {
    m.firstConnect = earliest(m.firstConnect, s.firstConnect);
    m.lastAck = latest(m.lastAck, s.lastAck);
    m.generated += s.generated;
    m.acked += s.acked;
    m.syncs += s.syncs;
    m.failedSyncs += s.failedSyncs;
    m.reconnects += s.reconnects;
    for (const [k, n] of Object.entries(s.errors)) m.errors[k] = (m.errors[k] ?? 0) + n;
    for (const [k, d] of Object.entries(s.samples)) m.samples[k] ??= d;
    s.hist.forEach((n, i) => (m.hist[i] += n));
    m.latencyMaxMs = Math.max(m.latencyMaxMs, s.latencyMaxMs);
    m.open += s.open;
    m.peakOpen += s.peakOpen;
    m.unfinished += s.unfinished;
    m.maxRssKb += s.maxRssKb;
    m.cpuMs += s.cpuMs;
  }
  return m;
}
