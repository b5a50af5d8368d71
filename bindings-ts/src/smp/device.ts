// Device addresses as `beacon upload --device` takes them: udp:HOST[:PORT], serial:/dev/tty...,
// ble:NAME.
import { openBle } from './ble';
import { openSerial } from './serialTransport';
import { SmpTransport } from './transport';
import { openUdp, SMP_UDP_PORT } from './udp';

export type DeviceSpec =
  | { kind: 'udp'; host: string; port: number }
  | { kind: 'serial'; path: string }
  | { kind: 'ble'; name: string };

/** Parse a device address; throws RangeError with what is wrong. */
export function parseDevice(text: string): DeviceSpec {
  const colon = text.indexOf(':');
  const scheme = colon < 0 ? '' : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  if (scheme === 'udp') {
    // udp:HOST, udp:HOST:PORT, udp:[v6]:PORT
    const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(rest);
    if (!m) throw new RangeError(`'${text}': expected udp:HOST[:PORT]`);
    const port = m[3] === undefined ? SMP_UDP_PORT : Number(m[3]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`'${text}': port must be 1 to 65535`);
    return { kind: 'udp', host: m[1] ?? m[2], port };
  }
  if (scheme === 'serial') {
    if (!rest) throw new RangeError(`'${text}': expected serial:/dev/tty...`);
    return { kind: 'serial', path: rest };
  }
  if (scheme === 'ble') {
    if (!rest) throw new RangeError(`'${text}': expected ble:NAME (the name the device advertises)`);
    return { kind: 'ble', name: rest };
  }
  throw new RangeError(`'${text}': expected udp:HOST[:PORT], serial:/dev/tty... or ble:NAME`);
}

export function openDevice(spec: DeviceSpec): Promise<SmpTransport> {
  switch (spec.kind) {
    case 'udp':
      return openUdp(spec.host, spec.port);
    case 'serial':
      return openSerial(spec.path);
    case 'ble':
      return openBle(spec.name);
  }
}
