// SMP over a serial device or pseudo-terminal with the SMP serial framing (serial.ts).
//
// The device file is opened with node's own fs and tty modules: a pseudo-terminal (what
// beacon-smp-testd and the simulator offer) needs no native serial library. A terminal device is
// put in raw mode with stty first: with the usual defaults the line discipline would echo our
// frames back and turn each '\n' into '\r\n', which a device's SMP decoder takes for base64
// (node's own setRawMode keeps that translation). The baud rate is left as it is: set it with
// `stty -F /dev/ttyUSB0 115200` where it matters; USB CDC-ACM ports, as most nRF boards have,
// ignore it.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as tty from 'tty';
import { encodeSerial, SerialDecoder } from './serial';
import { DeviceError, SmpTransport, TransportStats } from './transport';

export async function openSerial(devicePath: string): Promise<SmpTransport> {
  const description = `serial:${devicePath}`;
  let fd: number;
  try {
    fd = fs.openSync(devicePath, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch (err) {
    throw new DeviceError(`cannot open ${description}: ${(err as Error).message}`);
  }
  if (tty.isatty(fd)) {
    const flag = process.platform === 'darwin' ? '-f' : '-F';
    const r = spawnSync('stty', [flag, devicePath, 'raw', '-echo'], { stdio: 'ignore' });
    if (r.status !== 0) {
      // A pty whose other side set it raw already works; a real port may not, so say so once.
      process.emitWarning(`could not put ${devicePath} in raw mode with stty; if uploads time out, run: stty ${flag} ${devicePath} raw -echo`);
    }
  }
  const stats: TransportStats = { sent: 0, received: 0 };
  let packetHandler: (p: Uint8Array) => void = () => {};
  let errorHandler: (e: Error) => void = () => {};
  // Console text between frames (a shell prompt, log lines) is not ours: it is dropped.
  const decoder = new SerialDecoder();
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
      const s = input as NodeJS.ReadableStream & { destroy?: () => void };
      s.destroy?.();
      try {
        fs.closeSync(fd);
      } catch {
        // the stream may have closed it already
      }
    },
  };
}
