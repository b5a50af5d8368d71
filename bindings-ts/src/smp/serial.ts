// SMP over a serial line or console, framed as Zephyr's MCUmgr serial transport
// (smp_transport.rst; src/runtime/smp/rt_smp_serial.h is the device side). A packet becomes lines
// of at most 127 bytes: a start marker (0x06 0x09 first, 0x04 0x14 for continuations), base64,
// '\n'. Decoded and joined the lines hold the length (BE16) of what follows, the packet and its
// CRC-16/XMODEM (BE16).
import { crc16 } from './crc16';

export const SERIAL_MAX_FRAME = 127;
const MAX_BODY = SERIAL_MAX_FRAME - 3;
const PKT = [0x06, 0x09];
const FRAG = [0x04, 0x14];

/**
 * Frame a packet. Splits as Zephyr's mcumgr_serial_tx_pkt does (93 raw bytes in the first line,
 * 90 in the others, the CRC kept with the last packet bytes), so the bytes are those a device
 * sends.
 */
export function encodeSerial(packet: Uint8Array): Buffer {
  const len = packet.length;
  if (len === 0 || len > 0xffff - 2) throw new RangeError(`cannot frame a packet of ${len} bytes`);
  const crc = crc16(packet);
  const crcBytes = [crc >> 8, crc & 0xff];
  const parts: Buffer[] = [];
  const group = (bytes: number[]): void => {
    parts.push(Buffer.from(Buffer.from(bytes).toString('base64'), 'latin1'));
  };
  let maxInput = Math.floor(MAX_BODY / 4) * 3;
  let off = 0;
  let first = true;
  while (off < len) {
    parts.push(Buffer.from(first ? PKT : FRAG));
    if (first) {
      group([(len + 2) >> 8, (len + 2) & 0xff, packet[0]]);
      off = 1;
      maxInput -= 3;
    }
    const left = len - off;
    let take = Math.min(left, maxInput);
    let last = false;
    if (maxInput - left === 0 || maxInput - left === 1) take -= 1;
    else if (maxInput - left >= 2) last = true;
    while (take >= 3) {
      group([packet[off], packet[off + 1], packet[off + 2]]);
      off += 3;
      take -= 3;
    }
    if (last) {
      const tail = [...packet.subarray(off), ...crcBytes];
      off = len;
      if (tail.length <= 3) group(tail);
      else {
        group(tail.slice(0, 3));
        group(tail.slice(3));
      }
    }
    parts.push(Buffer.from('\n'));
    first = false;
  }
  return Buffer.concat(parts);
}

export type SerialDrop = 'bad base64' | 'continuation without a first frame' | 'bad length' | 'bad CRC' | 'frame too long';

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Incremental decoder: feed it whatever the line delivers; it returns the complete packets.
 * Lines that do not start with a marker are console text, handed to onText; bad frames drop
 * the packet being received and are reported to onDrop (the serial protocol cannot answer them).
 */
export class SerialDecoder {
  private line: number[] = [];
  private inFrame = false;
  private atLineStart = true;
  private pending: number | undefined;
  private continuation = false;
  private packet: Buffer[] = [];
  private got = 0;
  private expect = 0;
  private discard = false;

  constructor(
    private readonly onText: (text: string) => void = () => {},
    private readonly onDrop: (why: SerialDrop) => void = () => {},
  ) {}

  feed(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let text = '';
    for (const byte of chunk) {
      if (this.pending !== undefined) {
        const m = this.pending;
        this.pending = undefined;
        if ((m === PKT[0] && byte === PKT[1]) || (m === FRAG[0] && byte === FRAG[1])) {
          this.inFrame = true;
          this.continuation = m === FRAG[0];
          this.line = [];
          this.discard = false;
          continue;
        }
        text += String.fromCharCode(m, byte);
        this.atLineStart = byte === 0x0a;
        continue;
      }
      if (this.inFrame) {
        if (byte === 0x0a) {
          this.inFrame = false;
          this.atLineStart = true;
          if (!this.discard) {
            const p = this.endOfFrame();
            if (p) out.push(p);
          }
        } else if (byte !== 0x0d && !this.discard) {
          if (this.line.length === MAX_BODY) {
            this.drop('frame too long');
            this.discard = true;
          } else this.line.push(byte);
        }
        continue;
      }
      if (this.atLineStart && (byte === PKT[0] || byte === FRAG[0])) {
        this.pending = byte;
        continue;
      }
      text += String.fromCharCode(byte);
      this.atLineStart = byte === 0x0a;
    }
    if (text) this.onText(text);
    return out;
  }

  private drop(why: SerialDrop): undefined {
    this.packet = [];
    this.got = 0;
    this.expect = 0;
    this.onDrop(why);
    return undefined;
  }

  private endOfFrame(): Uint8Array | undefined {
    const b64 = Buffer.from(this.line).toString('latin1');
    if (this.continuation && this.expect === 0) return this.drop('continuation without a first frame');
    if (!this.continuation) {
      this.packet = [];
      this.got = 0;
      this.expect = 0;
    }
    if (!B64.test(b64)) return this.drop('bad base64');
    let raw = Buffer.from(b64, 'base64');
    if (!this.continuation) {
      if (raw.length < 2) return this.drop('bad length');
      this.expect = raw.readUInt16BE(0);
      if (this.expect <= 2) return this.drop('bad length');
      raw = raw.subarray(2);
    }
    if (this.got + raw.length > this.expect) return this.drop('bad length');
    this.packet.push(raw);
    this.got += raw.length;
    if (this.got < this.expect) return undefined;
    const all = Buffer.concat(this.packet);
    this.packet = [];
    this.got = 0;
    this.expect = 0;
    if (crc16(all) !== 0) return this.drop('bad CRC');
    return new Uint8Array(all.subarray(0, all.length - 2));
  }
}
