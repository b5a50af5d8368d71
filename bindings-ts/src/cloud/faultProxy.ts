// A fault-injecting MQTT proxy for tests: it sits between a device and the cloud's broker on
// loopback, reads every packet in both directions (mqtt-packet, the parser mqtt and aedes are
// built on, so the proxy reads MQTT exactly as the broker does) and, on command, does to the
// device's sync what a bad network or a dying cloud does:
//
// - cut: drops the connection when the cloud's acknowledgement of a batch arrives, so the batch
//   is committed in the store and the device never hears of it; or when a message frame with
//   messages arrives, so the device never gets them;
// - duplicate: sends the device's next batch PUBLISH to the broker twice (the second marked DUP,
//   its PUBACK kept from the device, which never sent it);
// - reorder: holds the device's next batch and delivers it right after the one that follows it;
// - delay: holds every packet in both directions for a while (order kept);
// - pause: while the cloud is down, refuses the first connections and then holds the next one
//   until the test resumes (the device is left waiting for its CONNACK, not refused again).
//
// It also counts what passed: batches and the events in them, events the device sent again
// (retransmissions), message ids handed to the device. Importing this file starts nothing.
import * as net from 'net';
import type { IPublishPacket, Packet } from 'mqtt-packet';
import { decodeBatch, decodeMessageFrame, parseTopic } from './protocol';

export interface FaultProxyStats {
  /** TCP connections the device opened to the proxy. */
  connections: number;
  /** Connections refused (closed at once) while paused. */
  refused: number;
  /** Upload batches forwarded to the broker (an injected duplicate counts too). */
  batches: number;
  /** Events in those batches. */
  events: number;
  /** Events forwarded that an earlier batch had already carried (stream and seq). */
  retransmitted: number;
  /** Batches injected a second time by duplicate(). */
  duplicated: number;
  /** Batches delivered after the batch that followed them. */
  reordered: number;
  /** Held batches released alone (no batch followed in time). */
  releasedAlone: number;
  /** Connections dropped between a batch's commit and its acknowledgement. */
  cuts: number;
  /** Connections dropped before a message frame reached the device. */
  messageCuts: number;
  /** Batch acknowledgements forwarded to the device. */
  acks: number;
  /** Message ids in message frames forwarded to the device, in order (a redelivery repeats). */
  messageIds: number[];
  /** Package chunks (topic c) forwarded to the device, and connections dropped at one. */
  chunks: number;
  chunkCuts: number;
}

export interface FaultProxy {
  url: string;
  readonly stats: FaultProxyStats;
  /** Drop the connection at each of the next `count` batch acknowledgements. */
  cutAtAck(count?: number): void;
  /** Drop the connection at each of the next `count` message frames that carry messages. */
  cutAtMessages(count?: number): void;
  /** Drop the connection when the `nth` package chunk from now is on its way to the device. */
  cutAtChunk(nth: number): void;
  /** Send the next `count` upload batches twice. */
  duplicate(count?: number): void;
  /** Hold the next `count` upload batches, each until the next batch has gone (or holdMs). */
  reorder(count?: number, holdMs?: number): void;
  /** Hold every packet, both directions, this long (0: none). */
  delay(ms: number): void;
  /** Called after each upload batch is forwarded (n counts from 1); traffic waits for it. */
  onBatch(fn: ((n: number) => Promise<void> | void) | undefined): void;
  /** Refuse the next `refuse` connections, then hold new ones until resume(). */
  pause(refuse?: number): void;
  resume(): void;
  /** Close every connection (the device sees the link drop). */
  dropAll(): void;
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** The broker. */
  host?: string;
  port: number;
  /** How long a held connection waits for resume() before it is closed (default 15 s). */
  holdLimitMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const mqttPacket = await import('mqtt-packet');
  const host = opts.host ?? '127.0.0.1';
  const holdLimitMs = opts.holdLimitMs ?? 15_000;
  const stats: FaultProxyStats = {
    connections: 0,
    refused: 0,
    batches: 0,
    events: 0,
    retransmitted: 0,
    duplicated: 0,
    reordered: 0,
    releasedAlone: 0,
    cuts: 0,
    messageCuts: 0,
    chunks: 0,
    chunkCuts: 0,
    acks: 0,
    messageIds: [],
  };
  const seen = new Set<string>(); // `${stream}:${seq}` of every event forwarded
  let cutsArmed = 0;
  let messageCutsArmed = 0;
  let chunksBeforeCut = 0;
  let duplicatesArmed = 0;
  let reordersArmed = 0;
  let reorderHoldMs = 300;
  let delayMs = 0;
  let batchHook: ((n: number) => Promise<void> | void) | undefined;
  let paused = false;
  let refuseArmed = 0;
  let resumeWaiters: (() => void)[] = [];
  const sockets = new Set<net.Socket>();

  const countBatch = (p: IPublishPacket): void => {
    stats.batches++;
    try {
      const b = decodeBatch(p.payload as Buffer);
      for (const e of b.events) {
        const key = `${b.stream}:${e.seq}`;
        if (seen.has(key)) stats.retransmitted++;
        seen.add(key);
        stats.events++;
      }
    } catch {
      // A batch the cloud will refuse: forwarded all the same, the cloud's answer is the test.
    }
  };

  const waitResume = (): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), holdLimitMs);
      resumeWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  const server = net.createServer((device) => {
    stats.connections++;
    sockets.add(device);
    device.setNoDelay(true);
    if (paused && refuseArmed > 0) {
      refuseArmed--;
      stats.refused++;
      device.destroy();
      sockets.delete(device);
      return;
    }
    let cloud: net.Socket | undefined;
    let closed = false;
    let held: { packet: IPublishPacket; timer: NodeJS.Timeout } | undefined;
    const close = (): void => {
      if (closed) return;
      closed = true;
      if (held) clearTimeout(held.timer); // a batch held back dies with its connection
      device.destroy();
      cloud?.destroy();
      sockets.delete(device);
      if (cloud) sockets.delete(cloud);
    };
    device.on('error', close);
    device.on('close', close);

    // Each direction is a chain: packets leave in the order they came, after their faults.
    let up: Promise<void> = Promise.resolve();
    let down: Promise<void> = Promise.resolve();
    const toCloud = (p: Packet): void => {
      if (!closed) cloud?.write(mqttPacket.generate(p, { protocolVersion: 4 }));
    };
    const toDevice = (p: Packet): void => {
      if (!closed) device.write(mqttPacket.generate(p, { protocolVersion: 4 }));
    };
    const swallowPuback = new Set<number>();

    const forwardBatch = async (p: IPublishPacket): Promise<void> => {
      countBatch(p);
      toCloud(p);
      if (batchHook) await batchHook(stats.batches);
    };
    const releaseHeld = async (): Promise<void> => {
      if (!held) return;
      const h = held;
      held = undefined;
      clearTimeout(h.timer);
      await forwardBatch(h.packet);
    };

    const upstream = async (p: Packet): Promise<void> => {
      if (delayMs > 0) await sleep(delayMs);
      if (closed) return;
      const t = p.cmd === 'publish' ? parseTopic(p.topic) : undefined;
      if (p.cmd !== 'publish' || t?.kind !== 'u') {
        toCloud(p);
        return;
      }
      if (held) {
        // The held batch goes after this one: the broker sees them swapped.
        const h = held;
        held = undefined;
        clearTimeout(h.timer);
        await forwardBatch(p);
        stats.reordered++;
        await forwardBatch(h.packet);
        return;
      }
      if (reordersArmed > 0) {
        reordersArmed--;
        held = {
          packet: p,
          timer: setTimeout(() => {
            stats.releasedAlone++;
            up = up.then(releaseHeld);
          }, reorderHoldMs),
        };
        return;
      }
      await forwardBatch(p);
      if (duplicatesArmed > 0 && p.qos === 1) {
        duplicatesArmed--;
        stats.duplicated++;
        swallowPuback.add(p.messageId as number);
        await forwardBatch({ ...p, dup: true });
      }
    };

    const downstream = async (p: Packet): Promise<void> => {
      if (delayMs > 0) await sleep(delayMs);
      if (closed) return;
      if (p.cmd === 'puback' && p.messageId !== undefined && swallowPuback.has(p.messageId)) {
        // The broker answers both copies of a duplicated batch; the device sent one.
        swallowPuback.delete(p.messageId);
        return;
      }
      if (p.cmd === 'publish') {
        const t = parseTopic(p.topic);
        if (t?.kind === 'a') {
          if (cutsArmed > 0) {
            cutsArmed--;
            stats.cuts++;
            close();
            return;
          }
          stats.acks++;
        } else if (t?.kind === 'm') {
          let ids: number[] = [];
          try {
            ids = decodeMessageFrame(p.payload as Buffer).messages.map((m) => m.id);
          } catch {
            // Not ours to judge: the device reports a frame it cannot decode.
          }
          if (ids.length > 0 && messageCutsArmed > 0) {
            messageCutsArmed--;
            stats.messageCuts++;
            close();
            return;
          }
          stats.messageIds.push(...ids);
        } else if (t?.kind === 'c') {
          if (chunksBeforeCut > 0 && --chunksBeforeCut === 0) {
            stats.chunkCuts++;
            close();
            return;
          }
          stats.chunks++;
        }
      }
      toDevice(p);
    };

    const upParser = mqttPacket.parser({ protocolVersion: 4 });
    upParser.on('packet', (p: Packet) => {
      up = up.then(() => upstream(p)).catch(close);
    });
    upParser.on('error', close);
    const downParser = mqttPacket.parser({ protocolVersion: 4 });
    downParser.on('packet', (p: Packet) => {
      down = down.then(() => downstream(p)).catch(close);
    });
    downParser.on('error', close);

    // The device's bytes wait (paused, TCP keeps them) until the cloud side is connected.
    device.pause();
    void (async () => {
      if (paused && !(await waitResume())) return close();
      if (closed) return;
      const c = net.connect(opts.port, host);
      cloud = c;
      sockets.add(c);
      c.setNoDelay(true);
      c.on('error', close);
      c.on('close', close);
      c.on('data', (d: Buffer) => downParser.parse(d));
      c.once('connect', () => {
        device.on('data', (d: Buffer) => upParser.parse(d));
        device.resume();
      });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    stats,
    cutAtAck(count = 1) {
      cutsArmed += count;
    },
    cutAtChunk(nth: number) {
      chunksBeforeCut = nth;
    },
    cutAtMessages(count = 1) {
      messageCutsArmed += count;
    },
    duplicate(count = 1) {
      duplicatesArmed += count;
    },
    reorder(count = 1, holdMs = 300) {
      reordersArmed += count;
      reorderHoldMs = holdMs;
    },
    delay(ms) {
      delayMs = ms;
    },
    onBatch(fn) {
      batchHook = fn;
    },
    pause(refuse = 0) {
      paused = true;
      refuseArmed = refuse;
    },
    resume() {
      paused = false;
      refuseArmed = 0;
      const w = resumeWaiters;
      resumeWaiters = [];
      for (const f of w) f();
    },
    dropAll() {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
