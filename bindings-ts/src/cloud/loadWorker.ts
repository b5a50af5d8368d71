// A worker process of the load generator (forked by loadGen.ts): it runs the devices of one
// slice of the fleet, at most `connections` of them connected at a time, and reports its
// figures to the coordinator over the IPC channel once a second and when it is done.
//
// Scheduling. Without a period every device has its events queued at the start and syncs once;
// the devices wait for a connection slot in index order, which is how a backlog of devices
// coming back after an outage is drained. With a period each device queues its events and
// syncs every period from a phase spread evenly over the first period, until the duration ends.
// A failed sync is tried again after a backoff (0.5 s doubling to 10 s, with jitter so that
// devices cut off together do not come back together) with every unacknowledged event.
import { LoadDevice, LoadTarget, RunningSync, startSync, SyncObserver, SyncSettings } from './loadDevice';
import { loadDeviceId, loadPassword } from './loadFleet';
import { emptyStats, recordError, recordLatency, WorkerStats } from './loadStats';

export interface WorkerConfig {
  target: LoadTarget;
  settings: SyncSettings;
  /** The store's load secret and fleet tag: the devices' ids and passwords derive from them. */
  secret: string;
  tag: string;
  /** This worker's devices: indexes from..to-1 of a fleet of `fleet`. */
  from: number;
  to: number;
  fleet: number;
  /** Connections open at a time, at most. */
  connections: number;
  /** Events each device queues per sync. */
  events: number;
  periodMs?: number;
  /** Without a period: the longest the run may take. With one: how long devices start syncs. */
  durationMs: number;
  /** With a period: how long after the duration unfinished devices may still sync. */
  graceMs: number;
}

export type ToWorker = { t: 'config'; config: WorkerConfig } | { t: 'go'; startAt: number } | { t: 'stop' };
export type FromWorker = { t: 'ready' } | { t: 'progress'; stats: WorkerStats } | { t: 'done'; stats: WorkerStats };

/**
 * Connections between the TCP connect and the CONNACK, at most. A broker accepts connections
 * from a listen backlog of its own size (Mosquitto's is 100) and checks each password with a
 * deliberately slow hash; thousands of SYNs at once would only overflow the backlog and come
 * back a second later as retransmissions. 64 per worker keeps the broker busy all the same.
 */
const MAX_CONNECTING = 64;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 10_000;

/** A min-heap of timed entries: when a device's next period or retry is due. */
class TimeHeap {
  private at: number[] = [];
  private dev: number[] = [];
  private retry: boolean[] = [];

  get size(): number {
    return this.at.length;
  }

  get next(): number {
    return this.at[0];
  }

  push(at: number, dev: number, retry: boolean): void {
    let i = this.at.length;
    this.at.push(at);
    this.dev.push(dev);
    this.retry.push(retry);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.at[p] <= this.at[i]) break;
      this.swap(i, p);
      i = p;
    }
  }

  pop(): { at: number; dev: number; retry: boolean } {
    const top = { at: this.at[0], dev: this.dev[0], retry: this.retry[0] };
    const last = this.at.length - 1;
    this.swap(0, last);
    this.at.pop();
    this.dev.pop();
    this.retry.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < last && this.at[l] < this.at[m]) m = l;
      if (r < last && this.at[r] < this.at[m]) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }

  private swap(a: number, b: number): void {
    [this.at[a], this.at[b]] = [this.at[b], this.at[a]];
    [this.dev[a], this.dev[b]] = [this.dev[b], this.dev[a]];
    [this.retry[a], this.retry[b]] = [this.retry[b], this.retry[a]];
  }
}

// Per device state, one byte each.
const QUEUED = 1;
const SYNCING = 2;
const WAITING_RETRY = 4;

export class LoadWorker {
  readonly stats = emptyStats();
  private devices: LoadDevice[] = [];
  private state: Uint8Array;
  private failures: Uint8Array;
  private ready: number[] = [];
  private readyHead = 0;
  private heap = new TimeHeap();
  private running = new Set<RunningSync>();
  private connecting = 0;
  private endAt = 0;
  private giveUpAt = 0;
  private wake?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private stopped = false;
  private finished = false;
  private observer: SyncObserver;

  constructor(
    private c: WorkerConfig,
    private onDone: (stats: WorkerStats) => void,
  ) {
    for (let i = c.from; i < c.to; i++) {
      const id = loadDeviceId(c.tag, i);
      this.devices.push(new LoadDevice(id, loadPassword(c.secret, id)));
    }
    this.state = new Uint8Array(this.devices.length);
    this.failures = new Uint8Array(this.devices.length);
    const s = this.stats;
    this.observer = {
      opened: (at) => {
        s.firstConnect ??= at;
        s.open++;
        if (s.open > s.peakOpen) s.peakOpen = s.open;
      },
      closed: () => s.open--,
      connackd: () => {
        this.connecting--;
        this.tick();
      },
      acked: (events, latencyMs, at) => {
        s.acked += events;
        if (latencyMs >= 0) recordLatency(s, latencyMs);
        if (s.lastAck === null || at > s.lastAck) s.lastAck = at;
      },
    };
  }

  start(startAt: number): void {
    const periodic = this.c.periodMs !== undefined;
    this.endAt = startAt + this.c.durationMs;
    this.giveUpAt = periodic ? this.endAt + this.c.graceMs : this.endAt;
    const n = this.devices.length;
    for (let i = 0; i < n; i++) {
      if (periodic) {
        // Spread over the period by the index in the whole fleet: the workers' devices interleave.
        const phase = ((this.c.from + i) / this.c.fleet) * this.c.periodMs!;
        this.heap.push(startAt + phase, i, false);
      } else {
        this.generate(i, startAt);
        this.enqueue(i);
      }
    }
    this.sleepUntil(startAt);
  }

  /** End the run now: no more syncs; the running ones are cut off. */
  stop(): void {
    this.stopped = true;
    for (const r of this.running) r.abort('stopped', 'the run was interrupted');
    this.tick();
  }

  private generate(i: number, now: number): void {
    this.devices[i].generate(this.c.events, now);
    this.stats.generated += this.c.events;
  }

  private enqueue(i: number): void {
    if (this.state[i] & (QUEUED | SYNCING | WAITING_RETRY)) return;
    this.state[i] |= QUEUED;
    this.ready.push(i);
  }

  private sleepUntil(at: number): void {
    if (at >= this.wakeAt) return;
    clearTimeout(this.wake);
    this.wakeAt = at;
    this.wake = setTimeout(() => {
      this.wakeAt = Infinity;
      this.wake = undefined;
      this.tick();
    }, Math.max(0, at - Date.now()));
  }

  private tick(): void {
    if (this.finished) return;
    const now = Date.now();
    if (!this.stopped && now >= this.giveUpAt) this.stopAtDeadline();
    while (!this.stopped && this.heap.size > 0 && this.heap.next <= now) {
      const e = this.heap.pop();
      if (e.retry) {
        this.state[e.dev] &= ~WAITING_RETRY;
        this.enqueue(e.dev);
      } else {
        this.generate(e.dev, now);
        const next = e.at + this.c.periodMs!;
        if (next < this.endAt) this.heap.push(next, e.dev, false);
        this.enqueue(e.dev);
      }
    }
    while (!this.stopped && this.running.size < this.c.connections && this.connecting < MAX_CONNECTING && this.readyHead < this.ready.length) {
      const i = this.ready[this.readyHead++];
      this.state[i] &= ~QUEUED;
      this.begin(i);
    }
    if (this.readyHead > 4096 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
    if (this.running.size === 0 && (this.stopped || (this.readyHead === this.ready.length && this.heap.size === 0))) {
      this.finish();
      return;
    }
    if (!this.stopped && this.heap.size > 0) this.sleepUntil(Math.min(this.heap.next, this.giveUpAt));
    else if (!this.stopped) this.sleepUntil(this.giveUpAt);
  }

  private stopAtDeadline(): void {
    this.stopped = true;
    const what = this.c.periodMs === undefined ? '--duration ran out' : '--duration and the time after it for retries ran out';
    for (const r of this.running) r.abort('cut_off', `the sync was still running when ${what}`);
  }

  private begin(i: number): void {
    const dev = this.devices[i];
    this.state[i] |= SYNCING;
    if (this.failures[i] > 0) this.stats.reconnects++;
    this.connecting++;
    const run = startSync(dev, this.c.target, this.c.settings, this.observer);
    this.running.add(run);
    void run.outcome.then((o) => {
      this.running.delete(run);
      this.state[i] &= ~SYNCING;
      if (o.ok) {
        this.stats.syncs++;
        this.failures[i] = 0;
        // Events queued while the sync was past sending go in a sync of their own.
        if (dev.pending > 0) this.enqueue(i);
      } else {
        recordError(this.stats, o.kind, o.detail);
        if (this.failures[i] < 255) this.failures[i]++;
        const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.failures[i] - 1)) * (0.5 + Math.random());
        const at = Date.now() + backoff;
        if (!this.stopped && at < this.giveUpAt) {
          this.state[i] |= WAITING_RETRY;
          this.heap.push(at, i, true);
        }
      }
      this.tick();
    });
  }

  private finish(): void {
    this.finished = true;
    clearTimeout(this.wake);
    this.stats.unfinished = this.devices.reduce((n, d) => n + (d.pending > 0 ? 1 : 0), 0);
    this.onDone(this.snapshot());
  }

  snapshot(): WorkerStats {
    const u = process.resourceUsage();
    this.stats.maxRssKb = u.maxRSS;
    this.stats.cpuMs = (u.userCPUTime + u.systemCPUTime) / 1000;
    return this.stats;
  }
}

// The process entry: configured, started and stopped by messages from the coordinator.
if (require.main === module && process.send) {
  let worker: LoadWorker | undefined;
  let progress: NodeJS.Timeout | undefined;
  const send = (m: FromWorker, then?: () => void): void => {
    process.send!(m, undefined, undefined, () => then?.());
  };
  // The coordinator gone (killed, or ended without stopping us): nothing to report to.
  process.on('disconnect', () => process.exit(1));
  process.on('message', (m: ToWorker) => {
    if (m.t === 'config') {
      worker = new LoadWorker(m.config, (stats) => {
        clearInterval(progress);
        send({ t: 'done', stats }, () => process.exit(0));
      });
      send({ t: 'ready' });
    } else if (m.t === 'go' && worker) {
      const w = worker;
      progress = setInterval(() => send({ t: 'progress', stats: w.snapshot() }), 1000);
      w.start(m.startAt);
    } else if (m.t === 'stop') {
      worker?.stop();
    }
  });
}
