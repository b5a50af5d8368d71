// SMP over Bluetooth LE (smp_transport.rst): one GATT characteristic; requests are written
// without response, answers come as notifications, and a packet larger than the ATT MTU is split
// across writes or notifications with no framing of its own (the SMP header's length tells where
// a packet ends).
//
// The BLE stack is @abandonware/noble, the maintained fork of noble. It is an optional peer
// dependency, loaded only when a ble: device is asked for: it builds native HCI bindings, which
// a machine without Bluetooth (CI, most servers) does not need. Install it with
// `npm install @abandonware/noble` where an adapter is present.
import { SMP_HEADER_SIZE } from './header';
import { DeviceError, SmpTransport, TransportStats } from './transport';

export const SMP_SERVICE_UUID = '8d53dc1d1db74cd3868b8a527460aa84';
export const SMP_CHARACTERISTIC_UUID = 'da2e7828fbce4e01ae9e261174997c48';
export const NOBLE_PACKAGE = '@abandonware/noble';

/** The part of noble's API used here (it ships no TypeScript types of its own). */
interface NobleCharacteristic {
  uuid: string;
  subscribeAsync(): Promise<void>;
  writeAsync(data: Buffer, withoutResponse: boolean): Promise<void>;
  on(event: 'data', cb: (data: Buffer) => void): void;
}
interface NoblePeripheral {
  advertisement?: { localName?: string; serviceUuids?: string[] };
  mtu?: number | null;
  connectAsync(): Promise<void>;
  disconnectAsync(): Promise<void>;
  discoverSomeServicesAndCharacteristicsAsync(
    services: string[],
    characteristics: string[],
  ): Promise<{ characteristics: NobleCharacteristic[] }>;
  once(event: 'disconnect', cb: () => void): void;
}
interface Noble {
  state: string;
  on(event: 'stateChange', cb: (state: string) => void): void;
  on(event: 'discover', cb: (p: NoblePeripheral) => void): void;
  removeAllListeners(event: string): void;
  startScanningAsync(services: string[], allowDuplicates: boolean): Promise<void>;
  stopScanningAsync(): Promise<void>;
}

export const NOBLE_MISSING =
  `BLE needs the optional package ${NOBLE_PACKAGE}, which is not installed ` + `(npm install ${NOBLE_PACKAGE}, on a machine with a Bluetooth adapter)`;

/** Load noble, or say in one line why BLE is not available. `load` is for tests. */
export async function loadNoble(load: (name: string) => Promise<unknown> = (name) => import(name)): Promise<Noble> {
  let mod: unknown;
  try {
    mod = await load(NOBLE_PACKAGE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') throw new DeviceError(NOBLE_MISSING);
    throw new DeviceError(`${NOBLE_PACKAGE} cannot be loaded: ${(err as Error).message}`);
  }
  const m = mod as { default?: Noble } & Partial<Noble>;
  const noble = (m.default ?? m) as Noble;
  if (typeof noble.startScanningAsync !== 'function') throw new DeviceError(`${NOBLE_PACKAGE} is too old: no startScanningAsync`);
  return noble;
}

function waitPoweredOn(noble: Noble, ms: number): Promise<void> {
  if (noble.state === 'poweredOn') return Promise.resolve();
  const fail = (): DeviceError => new DeviceError(`no usable Bluetooth adapter (state: ${noble.state || 'unknown'})`);
  // These two do not change while the process runs; the others may, once the adapter is up.
  if (noble.state === 'unsupported' || noble.state === 'unauthorized') return Promise.reject(fail());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(fail()), ms);
    noble.on('stateChange', (state) => {
      if (state === 'poweredOn') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

/** Splits a notification stream into SMP packets using the length in each header. */
export class PacketAssembler {
  private buf = Buffer.alloc(0);
  push(chunk: Uint8Array): Uint8Array[] {
    this.buf = Buffer.concat([this.buf, chunk]);
    const out: Uint8Array[] = [];
    while (this.buf.length >= SMP_HEADER_SIZE) {
      const total = SMP_HEADER_SIZE + this.buf.readUInt16BE(2);
      if (this.buf.length < total) break;
      out.push(new Uint8Array(this.buf.subarray(0, total)));
      this.buf = this.buf.subarray(total);
    }
    return out;
  }
}

export interface BleOptions {
  /** How long to scan for the device (default 10 s). */
  scanMs?: number;
  /** How long to wait for the adapter to power on (default 5 s). */
  adapterMs?: number;
  /** Loads the BLE package; for tests. */
  load?: (name: string) => Promise<unknown>;
}

export async function openBle(name: string, opts: BleOptions = {}): Promise<SmpTransport> {
  const description = `ble:${name}`;
  const noble = await loadNoble(opts.load);
  await waitPoweredOn(noble, opts.adapterMs ?? 5000);
  const scanMs = opts.scanMs ?? 10_000;
  const peripheral = await new Promise<NoblePeripheral>((resolve, reject) => {
    const timer = setTimeout(() => {
      noble.removeAllListeners('discover');
      void noble.stopScanningAsync();
      reject(new DeviceError(`no device named '${name}' advertising the SMP service within ${scanMs / 1000} s`));
    }, scanMs);
    noble.on('discover', (p) => {
      if (p.advertisement?.localName !== name) return;
      clearTimeout(timer);
      noble.removeAllListeners('discover');
      void noble.stopScanningAsync();
      resolve(p);
    });
    noble.startScanningAsync([SMP_SERVICE_UUID], false).catch((err: Error) => {
      clearTimeout(timer);
      reject(new DeviceError(`cannot scan for BLE devices: ${err.message}`));
    });
  });
  await peripheral.connectAsync();
  const { characteristics } = await peripheral.discoverSomeServicesAndCharacteristicsAsync([SMP_SERVICE_UUID], [SMP_CHARACTERISTIC_UUID]);
  const ch = characteristics.find((c) => c.uuid === SMP_CHARACTERISTIC_UUID);
  if (!ch) {
    await peripheral.disconnectAsync();
    throw new DeviceError(`${description} has no SMP characteristic`);
  }
  const stats: TransportStats = { sent: 0, received: 0 };
  const assembler = new PacketAssembler();
  let packetHandler: (p: Uint8Array) => void = () => {};
  let errorHandler: (e: Error) => void = () => {};
  ch.on('data', (data) => {
    stats.received += data.length;
    for (const p of assembler.push(data)) packetHandler(p);
  });
  await ch.subscribeAsync();
  peripheral.once('disconnect', () => errorHandler(new DeviceError(`${description} disconnected`)));
  // ATT payload per write: the negotiated MTU less the 3-byte ATT header (23 when unknown).
  const piece = Math.max(20, (peripheral.mtu ?? 23) - 3);
  return {
    description,
    stats,
    send: async (packet) => {
      for (let off = 0; off < packet.length; off += piece) {
        const part = Buffer.from(packet.subarray(off, off + piece));
        await ch.writeAsync(part, true);
        stats.sent += part.length;
      }
    },
    onPacket: (h) => {
      packetHandler = h;
    },
    onError: (h) => {
      errorHandler = h;
    },
    close: () => peripheral.disconnectAsync(),
  };
}
