// SMP over UDP, as Zephyr's SMP UDP transport: one packet per datagram, port 1337 by default.
import * as dgram from 'dgram';
import * as net from 'net';
import { DeviceError, SmpTransport, TransportStats } from './transport';

export const SMP_UDP_PORT = 1337;

export async function openUdp(host: string, port: number = SMP_UDP_PORT): Promise<SmpTransport> {
  const description = `udp:${host.includes(':') ? `[${host}]` : host}:${port}`;
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  const stats: TransportStats = { sent: 0, received: 0 };
  let packetHandler: (p: Uint8Array) => void = () => {};
  let errorHandler: (e: Error) => void = () => {};
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => reject(new DeviceError(`cannot reach ${description}: ${err.message}`));
    socket.once('error', fail);
    socket.connect(port, host, () => {
      socket.off('error', fail);
      resolve();
    });
  }).catch((err: unknown) => {
    socket.close();
    throw err;
  });
  socket.on('message', (msg: Buffer) => {
    stats.received += msg.length;
    packetHandler(new Uint8Array(msg));
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    // A connected UDP socket hears ICMP "port unreachable" as ECONNREFUSED: nothing listens.
    const why = err.code === 'ECONNREFUSED' ? 'nothing answers there (connection refused)' : err.message;
    errorHandler(new DeviceError(`${description}: ${why}`));
  });
  return {
    description,
    stats,
    send: (packet) =>
      new Promise<void>((resolve, reject) => {
        socket.send(packet, (err) => {
          if (err) reject(new DeviceError(`${description}: ${err.message}`));
          else {
            stats.sent += packet.length;
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
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
