// A real device on a rig, reached over the SMP transports: install an app, read its console.
//
// What a rig gives a black-box test: the app can be installed (SMP upload + the beacon group's
// install, as `beacon upload`) and, over serial, the console can be read (the device's UART
// carries print() lines between SMP frames). Over UDP or BLE there is no console: Zephyr's SMP
// transports carry management only. Buttons, motion, power, time and the trace need rig
// hardware this tool does not drive: tests that need them are skipped there.
import * as fs from 'fs';
import * as tty from 'tty';
import { spawnSync } from 'child_process';
import { encodeSerial, SerialDecoder } from '../smp/serial';
import { DeviceError, SmpTransport, TransportStats } from '../smp/transport';
import { DeviceSpec, openDevice, parseDevice } from '../smp/device';
import { SmpClient } from '../smp/client';
import { deviceStatus, DeviceStatus, installPackage, uploadPackage } from '../smp/upload';
import { ConsoleLines } from './console';

/** A serial SMP transport that also hands the console text between frames to onText. */
export async function openSerialConsole(devicePath: string, onText: (text: string) => void): Promise<SmpTransport> {
  const description = `serial:${devicePath}`;
  let fd: number;
  try {
    fd = fs.openSync(devicePath, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch (err) {
    throw new DeviceError(`cannot open ${description}: ${(err as Error).message}`);
  }
  if (tty.isatty(fd)) {
    // Raw mode, for the reasons given in smp/serialTransport.ts.
    spawnSync('stty', [process.platform === 'darwin' ? '-f' : '-F', devicePath, 'raw', '-echo'], { stdio: 'ignore' });
  }
  const stats: TransportStats = { sent: 0, received: 0 };
  let packetHandler: (p: Uint8Array) => void = () => {};
  let errorHandler: (e: Error) => void = () => {};
  const decoder = new SerialDecoder(onText);
  const input: NodeJS.ReadableStream = tty.isatty(fd) ? new tty.ReadStream(fd) : fs.createReadStream('', { fd, autoClose: false });
  input.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    stats.received += bytes.length;
    for (const p of decoder.feed(bytes)) packetHandler(p);
  });
  input.on('error', (err: Error) => errorHandler(new DeviceError(`${description}: ${err.message}`)));
  let closed = false;
  return {
    description,
    stats,
    send: (packet) =>
      new Promise<void>((resolve, reject) => {
        const frames = encodeSerial(packet);
        fs.write(fd, frames, (err) => {
          if (err) reject(new DeviceError(`${description}: ${err.message}`));
          else {
            stats.sent += frames.length;
            resolve();
          }
        });
      }),
    onPacket: (h) => {
      packetHandler = h;
    },
    onError: (h) => {
      errorHandler = h;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      try {
        fs.closeSync(fd);
      } catch {
        // the stream may have closed it already
      }
    },
  };
}

export interface RigSession {
  readonly spec: DeviceSpec;
  /** The console, or undefined when the transport carries none. */
  readonly console?: ConsoleLines;
  /** Upload and switch to a package; resolves with the device's verdict. */
  install(pkg: Uint8Array): Promise<string>;
  /** What the device says about its app (the beacon group's status). */
  status(): Promise<DeviceStatus>;
  close(): Promise<void>;
}

export async function openRig(address: string): Promise<RigSession> {
  const spec = parseDevice(address);
  let consoleLines: ConsoleLines | undefined;
  let transport: SmpTransport;
  if (spec.kind === 'serial') {
    const lines = new ConsoleLines();
    consoleLines = lines;
    transport = await openSerialConsole(spec.path, (text) => lines.feed(text));
  } else {
    transport = await openDevice(spec);
  }
  const client = new SmpClient(transport, { timeoutMs: 2000, retries: 3 });
  return {
    spec,
    console: consoleLines,
    install: async (pkg) => {
      await uploadPackage(client, pkg);
      return installPackage(client, pkg);
    },
    status: () => deviceStatus(client),
    close: () => client.close(),
  };
}
