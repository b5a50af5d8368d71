// The air as BabbleSim recorded it: the 2.4 GHz physical layer's dumps (bs_2G4_phy_v1 -dump) of
// what every device sent and listened for, read back. They are the firmware's radio as the
// controller really drove it, so they serve two purposes: a pcap that Wireshark opens (the same
// records BabbleSim's own dump_post_process/csv2pcap writes), and per-device radio figures (air
// time by transmit power, time listening) that an energy model of the radio can be checked
// against.
//
// The files (ext_2G4_phy_v1/docs/README_dumps.md): results/<sim id>/d_2G4_<NN>.Tx.csv and .Rx.csv
// per device NN (v1 columns; the Txv2/Rxv2 files say the same with more columns), one header
// line, one line per transmission or reception attempt. Times are integer microseconds of
// simulated time; a time that never came (TIME_NEVER, 2^64 - 1) is read as Infinity.
import * as fs from 'fs';
import * as path from 'path';

/** One transmission (a Tx.csv line). */
export interface TxRecord {
  /** First µs on the air (the first bit of the preamble). */
  startUs: number;
  /** Last µs of the packet (inclusive: the CRC's last bit), had it not been aborted. */
  endUs: number;
  /** Carrier, MHz above 2400. */
  centerMHz: number;
  /** The access address. */
  phyAddress: number;
  /** P2G4_MOD_*: 0x10 BLE 1M, 0x20 BLE 2M, 0x50 BLE coded. */
  modulation: number;
  /** Transmit power, dBm (with the antenna's gain). */
  powerDbm: number;
  /** When the device cut the transmission short; Infinity if it did not. */
  abortUs: number;
  /** Bytes after the access address: header, payload, MIC, CRC. */
  packet: Uint8Array;
}

/** One reception attempt (an Rx.csv line): the receiver open, searching for an access address. */
export interface RxRecord {
  /** When the receiver opened. */
  startUs: number;
  /** How long it would search for an address; Infinity: until the device aborts it. */
  scanDurationUs: number;
  phyAddress: number;
  modulation: number;
  centerMHz: number;
  abortUs: number;
  /** The device it synchronised to, -1 if none. */
  txNbr: number;
  /** Last µs (inclusive) of the address, of the header and of the packet, when it synchronised. */
  syncEndUs: number;
  headerEndUs: number;
  payloadEndUs: number;
  /** End of the address when synchronised; the µs the search ended at when not. */
  rxTimestampUs: number;
  /** P2G4_RXSTATUS_*: 1 ok, 2 CRC error, 3 header error, 4 no sync. */
  status: number;
  rssiDbm: number;
  packet: Uint8Array;
}

export const RX_OK = 1;
export const RX_HEADER_ERROR = 3;
export const RX_NO_SYNC = 4;

export const MOD_BLE_1M = 0x10;
export const MOD_BLE_2M = 0x20;
export const MOD_BLE_CODED = 0x50;

/** Rows of a dump, each by column name. Only Rxv2's address list is quoted ("[0x..]"), but quotes
 * are honoured everywhere. A last line cut short (a phy that ended mid-write) is left out, as
 * BabbleSim's csv_common.py does. */
export function parseCsv(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  // The CCA and Rxv2 headers have spaces after some commas.
  const header = splitCsvLine(lines[0]).map((h) => h.trim());
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(1)) {
    const cells = splitCsvLine(line);
    if (cells.length < header.length) continue;
    const row: Record<string, string> = {};
    header.forEach((h, i) => (row[h] = cells[i].trim()));
    rows.push(row);
  }
  return rows;
}

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (const c of line.replace(/\r$/, '')) {
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(cell);
      cell = '';
    } else cell += c;
  }
  out.push(cell);
  return out;
}

/** A time or duration: TIME_NEVER (2^64 - 1) and a scan of UINT32_MAX ("until aborted") are
 * Infinity, so that min() and comparisons need no special case. */
function time(text: string | undefined, never = 2 ** 63): number {
  const n = Number(text);
  if (!Number.isFinite(n)) throw new RangeError(`'${text}' is not a time in µs`);
  return n >= never ? Infinity : n;
}

function hexBytes(text: string | undefined): Uint8Array {
  const pairs = (text ?? '').match(/[0-9a-fA-F]{2}/g) ?? [];
  return Uint8Array.from(pairs.map((p) => parseInt(p, 16)));
}

/** A column by its v1 name, or the older name csv_common.py also accepts. */
function col(row: Record<string, string>, name: string): string | undefined {
  const alt: Record<string, string> = { start_time: 'Tx_Start_Time', center_freq: 'CenterFreq', phy_address: 'PhyAddress', packet_size: 'PacketSize', packet: 'Packet' };
  return row[name] ?? (alt[name] !== undefined ? row[alt[name]] : undefined);
}

/** The transmissions of a Tx.csv (v1). */
export function parseTxDump(text: string): TxRecord[] {
  return parseCsv(text).map((r) => ({
    startUs: time(col(r, 'start_time')),
    endUs: time(col(r, 'end_time')),
    centerMHz: Number(col(r, 'center_freq')),
    phyAddress: Number(col(r, 'phy_address')),
    modulation: Number(col(r, 'modulation')),
    powerDbm: Number(col(r, 'power_level')),
    abortUs: time(col(r, 'abort_time')),
    packet: hexBytes(col(r, 'packet')).slice(0, Number(col(r, 'packet_size') ?? Infinity)),
  }));
}

/** The reception attempts of an Rx.csv (v1). */
export function parseRxDump(text: string): RxRecord[] {
  return parseCsv(text).map((r) => ({
    startUs: time(col(r, 'start_time')),
    scanDurationUs: time(col(r, 'scan_duration'), 2 ** 32 - 1),
    phyAddress: Number(col(r, 'phy_address')),
    modulation: Number(col(r, 'modulation')),
    centerMHz: Number(col(r, 'center_freq')),
    abortUs: time(col(r, 'abort_time')),
    txNbr: Number(col(r, 'tx_nbr')),
    syncEndUs: time(col(r, 'sync_end')),
    headerEndUs: time(col(r, 'header_end')),
    payloadEndUs: time(col(r, 'payload_end')),
    rxTimestampUs: time(col(r, 'rx_time_stamp')),
    status: Number(col(r, 'status')),
    rssiDbm: Number(col(r, 'RSSI')),
    packet: hexBytes(col(r, 'packet')).slice(0, Number(col(r, 'packet_size') ?? Infinity)),
  }));
}

/** µs the transmitter was on: end_time is the packet's last µs, inclusive (nrf_hw_models sets it
 * to start + duration - 1); an aborted packet stops at the abort (the phy's min(end, abort)). */
export function txAirUs(r: TxRecord): number {
  return Math.max(0, Math.min(r.endUs + 1, r.abortUs) - r.startUs);
}

/** µs the receiver was open. The dump has no end time, but the phy's rules give it: a search
 * that found nothing ends at its rx_time_stamp (the µs after the scan's last one, or the abort);
 * a reception ends after its packet's last µs (after the header's on a header error), or at the
 * abort if that comes first. */
export function rxListenUs(r: RxRecord): number {
  let end: number;
  if (r.status === RX_NO_SYNC) end = r.rxTimestampUs;
  else end = Math.min(r.abortUs, (r.status === RX_HEADER_ERROR ? r.headerEndUs : r.payloadEndUs) + 1);
  return Number.isFinite(end) ? Math.max(0, end - r.startUs) : 0;
}

/** The dump files of a directory by device number: d_2G4_<NN>.Tx.csv and .Rx.csv (the v1 files;
 * Txv2 and Rxv2 say the same). */
export function dumpFiles(dir: string): Map<number, { tx?: string; rx?: string }> {
  const out = new Map<number, { tx?: string; rx?: string }>();
  for (const f of fs.readdirSync(dir).sort()) {
    const m = /^d_.*?(\d+)\.(Tx|Rx)\.csv$/.exec(f);
    if (!m) continue;
    const n = Number(m[1]);
    const e = out.get(n) ?? {};
    e[m[2] === 'Tx' ? 'tx' : 'rx'] = path.join(dir, f);
    out.set(n, e);
  }
  return out;
}

/** What one device's radio did over a run. */
export interface AirFigures {
  /** The device's number on the air (BabbleSim's -d). */
  device: number;
  /** Its name (the scenario's device, tag or extra) when the dump says it (air-devices.json). */
  name?: string;
  txPackets: number;
  /** µs the transmitter was on. */
  txUs: number;
  /** txUs by transmit power, keyed by the dBm as text ("-4", "0", "8"). */
  txUsByPowerDbm: Record<string, number>;
  /** µs the receiver was open (scanning, and listening for an answer after a packet). */
  rxUs: number;
  /** Of rxUs, the windows opened right after the device's own packet (within T_IFS and the
   * ramp-up, 200 µs): an advertiser listening for scan requests, an active scanner for the scan
   * response. What an energy model counts as advertising rather than scanning. */
  rxAfterTxUs: number;
  /** Packets received with a good CRC. */
  rxPackets: number;
}

/** Windows opened this soon after the device's own packet ended answer it (T_IFS is 150 µs). */
const AFTER_TX_US = 200;

/** The figures of one device from its parsed dumps. */
export function deviceFigures(device: number, tx: TxRecord[], rx: RxRecord[]): AirFigures {
  const fig: AirFigures = { device, txPackets: tx.length, txUs: 0, txUsByPowerDbm: {}, rxUs: 0, rxAfterTxUs: 0, rxPackets: 0 };
  for (const r of tx) {
    const us = txAirUs(r);
    fig.txUs += us;
    const key = String(r.powerDbm);
    fig.txUsByPowerDbm[key] = (fig.txUsByPowerDbm[key] ?? 0) + us;
  }
  // Both lists are in time order (the phy writes each when it ends, and a radio does one thing at
  // a time), so the latest packet before each window is found walking once.
  let k = 0;
  let lastTxEnd = -Infinity;
  for (const r of rx) {
    for (; k < tx.length && tx[k].startUs < r.startUs; k++) lastTxEnd = tx[k].startUs + txAirUs(tx[k]);
    const us = rxListenUs(r);
    fig.rxUs += us;
    if (r.startUs - lastTxEnd <= AFTER_TX_US) fig.rxAfterTxUs += us;
    if (r.status === RX_OK) fig.rxPackets++;
  }
  return fig;
}

/** Where the names of the devices on the air go in a dump directory: a JSON array, the name of
 * device n at n (bsimWorld.ts numbers them; the dump files have only the numbers). */
export const AIR_DEVICES_FILE = 'air-devices.json';

/** The radio figures of every device of a dump directory (a run's --air-dump, or BabbleSim's
 * results/<sim id>), in device-number order. */
export function airFigures(dir: string): AirFigures[] {
  const namesFile = path.join(dir, AIR_DEVICES_FILE);
  const names: string[] = fs.existsSync(namesFile) ? (JSON.parse(fs.readFileSync(namesFile, 'utf8')) as string[]) : [];
  const read = (f: string | undefined): string => (f !== undefined ? fs.readFileSync(f, 'utf8') : '');
  return [...dumpFiles(dir)].sort(([a], [b]) => a - b).map(([n, f]) => {
    const fig = deviceFigures(n, parseTxDump(read(f.tx)), parseRxDump(read(f.rx)));
    if (names[n] !== undefined) fig.name = names[n];
    return fig;
  });
}

/** The charge the transmitter drew, µC: each power's air time times the current the table gives
 * for it, mA by dBm ("-40" .. "8", a radio's datasheet). A power between two entries takes the one
 * at or above it (the next setting a radio has draws at least that much); a power above the table
 * is a table that does not fit the radio, and an error. mA × µs = nC. */
export function txChargeUc(fig: Pick<AirFigures, 'txUsByPowerDbm'>, txMaByPower: Record<string, number>): number {
  const levels = Object.keys(txMaByPower).map((k) => ({ dbm: Number(k), ma: txMaByPower[k] })).sort((a, b) => a.dbm - b.dbm);
  let nc = 0;
  for (const [p, us] of Object.entries(fig.txUsByPowerDbm)) {
    const level = levels.find((l) => l.dbm >= Number(p) - 1e-9);
    if (level === undefined) throw new RangeError(`no TX current at or above ${p} dBm in the table (${Object.keys(txMaByPower).join(', ')})`);
    nc += level.ma * us;
  }
  return nc / 1000;
}

// The pcap: libpcap's format with link type 256, LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (a 10-byte
// pseudo-header, then the access address, the PDU and the CRC), record for record what
// ext_2G4_phy_v1/dump_post_process/csv2pcap writes, so Wireshark shows the channel and the power
// of each packet.
const LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR = 256;
const SNAPLEN = 512;
const FLAG_SIGNAL_POWER = 1 << 1;
const FLAG_PHY: Record<number, number> = { [MOD_BLE_1M]: 0 << 14, [MOD_BLE_2M]: 1 << 14, [MOD_BLE_CODED]: 2 << 14 };

/** The pseudo-header's RF channel (0 to 39, 2402 MHz + 2n) of a carrier in MHz above 2400. */
export function rfChannel(centerMHz: number): number {
  if (centerMHz >= 1 && centerMHz < 81) return Math.floor((centerMHz - 1) / 2);
  throw new RangeError(`${centerMHz} MHz above 2400 is not a BLE channel`);
}

/**
 * A pcap of the transmissions of several devices, merged by start time (a tie goes to the lower
 * device), each record stamped baseUs + its start. baseUs is 0 by default: the simulation's own
 * time, so the same run gives the same file (csv2pcap adds the dump files' date unless -es).
 * Transmissions that are not BLE (an interferer's) have no place in an LE capture and are left
 * out; a coded packet is its FEC1 part (the CI byte) joined to the FEC2 part that follows it, and
 * dropped if it was cut before its FEC2, as csv2pcap does.
 */
export function airPcap(devices: TxRecord[][], baseUs = 0): Buffer {
  const chunks: Buffer[] = [];
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt16LE(2, 4);
  head.writeUInt16LE(4, 6);
  head.writeInt32LE(0, 8);
  head.writeUInt32LE(0, 12);
  head.writeUInt32LE(SNAPLEN, 16);
  head.writeUInt32LE(LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR, 20);
  chunks.push(head);
  const next = devices.map(() => 0);
  for (;;) {
    let d = -1;
    devices.forEach((list, i) => {
      if (next[i] < list.length && (d < 0 || list[next[i]].startUs < devices[d][next[d]].startUs)) d = i;
    });
    if (d < 0) break;
    const tx = devices[d][next[d]++];
    if (!(tx.modulation in FLAG_PHY)) continue;
    let body = tx.packet;
    if (tx.modulation === MOD_BLE_CODED) {
      const fec2 = devices[d][next[d]];
      if (tx.packet.length !== 1 || fec2 === undefined || fec2.modulation !== MOD_BLE_CODED || fec2.packet.length < 5) continue;
      next[d]++;
      body = Buffer.concat([tx.packet, fec2.packet]);
    }
    const origLen = body.length + 14;
    const inclLen = Math.min(origLen, SNAPLEN);
    const rec = Buffer.alloc(16 + 14);
    const ts = baseUs + tx.startUs;
    rec.writeUInt32LE(Math.floor(ts / 1e6), 0);
    rec.writeUInt32LE(ts % 1e6, 4);
    rec.writeUInt32LE(inclLen, 8);
    rec.writeUInt32LE(origLen, 12);
    rec.writeUInt8(rfChannel(tx.centerMHz), 16);
    rec.writeInt8(Math.max(-128, Math.min(127, Math.trunc(tx.powerDbm))), 17); // signal power
    rec.writeInt8(0, 18); // noise power
    rec.writeUInt8(0, 19); // access address offenses
    rec.writeUInt32LE(0, 20); // reference access address
    rec.writeUInt16LE(FLAG_SIGNAL_POWER | FLAG_PHY[tx.modulation], 24);
    rec.writeUInt32LE(tx.phyAddress >>> 0, 26);
    chunks.push(rec, Buffer.from(body.subarray(0, inclLen - 14)));
  }
  return Buffer.concat(chunks);
}

/** A pcap's records (for tests and checks): each one's time, the pseudo-header's fields and the
 * bytes after the access address. */
export interface PcapRecord {
  us: number;
  rfChannel: number;
  powerDbm: number;
  flags: number;
  accessAddress: number;
  packet: Buffer;
}

export function readPcap(buf: Buffer): { linkType: number; records: PcapRecord[] } {
  if (buf.length < 24 || buf.readUInt32LE(0) !== 0xa1b2c3d4) throw new RangeError('not a little-endian microsecond pcap');
  const records: PcapRecord[] = [];
  for (let at = 24; at + 16 <= buf.length;) {
    const incl = buf.readUInt32LE(at + 8);
    const data = buf.subarray(at + 16, at + 16 + incl);
    records.push({
      us: buf.readUInt32LE(at) * 1e6 + buf.readUInt32LE(at + 4),
      rfChannel: data.readUInt8(0),
      powerDbm: data.readInt8(1),
      flags: data.readUInt16LE(8),
      accessAddress: data.readUInt32LE(10),
      packet: Buffer.from(data.subarray(14)),
    });
    at += 16 + incl;
  }
  return { linkType: buf.readUInt32LE(20), records };
}

/** Write <dir>/air.pcap from the Tx dumps of every device there; returns the packets written. */
export function writeAirPcap(dir: string, out = path.join(dir, 'air.pcap')): number {
  const devices = [...dumpFiles(dir)].sort(([a], [b]) => a - b)
    .map(([, f]) => (f.tx !== undefined ? parseTxDump(fs.readFileSync(f.tx, 'utf8')) : []));
  const pcap = airPcap(devices);
  fs.writeFileSync(out, pcap);
  return readPcap(pcap).records.length;
}

/** After a run with a dump directory: name the devices on the air (when known) and write
 * air.pcap. Returns a line for the user. */
export function finishAirDump(dir: string, names?: string[]): string {
  if (!fs.existsSync(dir)) return `no air dump in ${dir}: BabbleSim wrote none`;
  if (names !== undefined) fs.writeFileSync(path.join(dir, AIR_DEVICES_FILE), `${JSON.stringify(names)}\n`);
  const packets = writeAirPcap(dir);
  const figs = airFigures(dir);
  return `the air as BabbleSim recorded it is in ${dir}: ${packets} packet${packets === 1 ? '' : 's'} in air.pcap, ` +
    figs.map((f) => `${f.name ?? `device ${f.device}`} ${f.txPackets} sent (${(f.txUs / 1000).toFixed(1)} ms), ${(f.rxUs / 1000).toFixed(1)} ms listening`).join('; ');
}

/** Before a run into dir: take away the dump files an earlier run left there (a run of fewer
 * devices would otherwise leave the others' files beside its own). Nothing else in dir is touched. */
export function clearAirDump(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir)) {
    if (/^d_.*\.csv$/.test(f) || f === 'air.pcap' || f === AIR_DEVICES_FILE) fs.rmSync(path.join(dir, f), { force: true });
  }
}
