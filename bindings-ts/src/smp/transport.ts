// What the SMP client needs from a link to a device: send whole packets, hear whole packets.
// Reassembly of fragments (serial lines, BLE notifications) is the transport's business.

export interface TransportStats {
  /** Bytes put on the wire (after any framing), and taken off it. */
  sent: number;
  received: number;
}

export interface SmpTransport {
  /** The device as the user named it, for messages ("udp:127.0.0.1:1337"). */
  readonly description: string;
  readonly stats: TransportStats;
  send(packet: Uint8Array): Promise<void>;
  /** Each complete packet received. */
  onPacket(handler: (packet: Uint8Array) => void): void;
  /** A failure of the link itself (port unreachable, device gone); requests in flight fail. */
  onError(handler: (err: Error) => void): void;
  close(): Promise<void>;
}

/** A device that cannot be reached or opened: one line for the user, exit status 1. */
export class DeviceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceError';
  }
}
