// A size limit in front of the embedded broker. aedes has no maximum packet size: it would
// buffer a packet of any announced length. This stream sits between the socket and aedes, reads
// each MQTT fixed header as the bytes pass, and closes the connection as soon as a packet
// announces more than the limit (or a malformed length), before its body is buffered.
import { Duplex } from 'stream';

export class FrameTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameTooLarge';
  }
}

/** Incremental MQTT fixed-header scanner: feed() returns an error text once a frame is refused. */
export class FrameScanner {
  private state: 'header' | 'length' | 'body' = 'header';
  private length = 0;
  private multiplier = 1;
  private lengthBytes = 0;
  private left = 0;

  constructor(readonly limit: number) {}

  feed(chunk: Uint8Array): string | undefined {
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'header':
          i++;
          this.state = 'length';
          this.length = 0;
          this.multiplier = 1;
          this.lengthBytes = 0;
          break;
        case 'length': {
          const b = chunk[i++];
          this.length += (b & 0x7f) * this.multiplier;
          this.multiplier *= 128;
          this.lengthBytes++;
          if (b & 0x80) {
            if (this.lengthBytes >= 4) return 'malformed MQTT remaining length';
            break;
          }
          if (this.length > this.limit) return `MQTT packet of ${this.length} bytes (limit ${this.limit})`;
          this.left = this.length;
          this.state = this.left > 0 ? 'body' : 'header';
          break;
        }
        case 'body': {
          const n = Math.min(this.left, chunk.length - i);
          i += n;
          this.left -= n;
          if (this.left === 0) this.state = 'header';
          break;
        }
      }
    }
    return undefined;
  }
}

/** The socket as aedes sees it, with packets over `limit` bytes refused. */
export function guardConnection(socket: Duplex, limit: number, onRefused: (why: string) => void): Duplex {
  const scanner = new FrameScanner(limit);
  const guarded: Duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      if (socket.destroyed) return cb();
      socket.write(chunk, (err) => cb(err ?? undefined));
    },
    final(cb) {
      socket.end(cb);
    },
    destroy(err, cb) {
      socket.destroy();
      cb(err);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    const why = scanner.feed(chunk);
    if (why !== undefined) {
      onRefused(why);
      socket.destroy();
      guarded.destroy();
      return;
    }
    if (!guarded.push(chunk)) socket.pause();
  });
  socket.on('end', () => guarded.push(null));
  socket.on('close', () => guarded.destroy());
  socket.on('error', () => guarded.destroy());
  return guarded;
}
