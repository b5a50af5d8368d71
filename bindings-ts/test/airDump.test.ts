// The air as BabbleSim recorded it (src/firmware/airDump.ts): the physical layer's Tx and Rx dumps
// read into records and per-device radio figures, and the pcap made from them, on small dumps
// written here by hand in the phy's own columns; then a run of an advertising firmware with
// --air-dump, whose pcap and figures must agree with its dump and with the app's interval.
// The end-to-end tests are skipped, saying why, without Zephyr, JerryScript or BabbleSim.
import * as assert from 'assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import {
  AIR_DEVICES_FILE, airFigures, airPcap, clearAirDump, deviceFigures, parseCsv, parseRxDump, parseTxDump, readPcap,
  rxListenUs, txAirUs, txChargeUc, writeAirPcap,
} from '../src/firmware/airDump';
import { workspaceMissing } from '../src/firmware/workspace';
import { world } from '../src/testing';
import { beacon, repo } from './boardRuns';

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-air-dump-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

const TX_HEADER = 'start_time,end_time,center_freq,phy_address,modulation,power_level,abort_time,recheck_time,packet_size,packet';
const RX_HEADER = 'start_time,scan_duration,phy_address,modulation,center_freq,antenna_gain,sync_threshold,header_threshold,' +
  'pream_and_addr_duration,header_duration,bps,abort_time,recheck_time,tx_nbr,biterrors,sync_end,header_end,payload_end,' +
  'rx_time_stamp,status,RSSI,packet_size,packet';
const NEVER = '18446744073709551615';

// Device 0 advertises on 37, 38 and 39 (the last packet aborted 60 µs in) at -4 and 0 dBm; device
// 1 sends a 2M packet at 4 dBm and, at the same µs as device 0's second packet, one at 8 dBm.
// A 1M packet of N bytes lasts (1 + 4 + N) * 8 µs, a 2M one (2 + 4 + N) * 4; end_time is its last µs.
const tx0 = [
  TX_HEADER,
  `1000,1119,2.000000,0x8E89BED6,16,-4.000000,${NEVER},1000,10,42 08 01 00 00 0B AC 5E 11 22`,
  `1620,1739,26.000000,0x8E89BED6,16,0.000000,${NEVER},1620,10,42 08 01 00 00 0B AC 5E 33 44`,
  '2240,2359,80.000000,0x8E89BED6,16,0.000000,2300,2240,10,42 08 01 00 00 0B AC 5E 55 66',
].join('\n') + '\n';
const tx1 = [
  TX_HEADER,
  `1500,1555,40.000000,0x50654A1B,32,4.000000,${NEVER},1500,8,0E 05 01 02 03 04 05 06`,
  `1620,1707,2.000000,0x8E89BED6,16,8.000000,${NEVER},1620,6,02 01 AA BB CC DD`,
].join('\n') + '\n';
// Device 0's receiver: a listen for a scan request 145 µs after its first packet (aborted after
// 65 µs), a 10 ms scan window that heard nothing, a good reception, a header error, and a CRC
// error cut by an abort; the last line is cut mid-write, as by a phy that ended then.
const rx0 = [
  RX_HEADER,
  '1265,4294967295,0x8E89BED6,16,2.000000,0.000000,2,0,40,16,1000000,1330,1331,-1,0,0,0,0,1330,4,0.000000,0,',
  `5000,10000,0x8E89BED6,16,2.000000,0.000000,2,0,40,16,1000000,${NEVER},5000,-1,0,0,0,0,15000,4,-90.000000,0,`,
  `20000,30000,0x8E89BED6,16,2.000000,0.000000,2,0,40,16,1000000,${NEVER},20000,1,0,20039,20055,20119,20039,1,-60.000000,6,02 01 AA BB CC DD`,
  `30000,30000,0x8E89BED6,16,2.000000,0.000000,2,0,40,16,1000000,${NEVER},30000,1,3,30039,30055,0,30039,3,-61.000000,0,`,
  '40000,30000,0x8E89BED6,16,2.000000,0.000000,2,0,40,16,1000000,40100,40000,1,0,40039,40055,40200,40039,2,-62.000000,0,',
  '50000,30000,0x8E89BED6,16,2.000000',
].join('\n') + '\n';

function fixtureDir(name: string): string {
  const dir = path.join(tempDir, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'd_2G4_00.Tx.csv'), tx0);
  fs.writeFileSync(path.join(dir, 'd_2G4_00.Rx.csv'), rx0);
  fs.writeFileSync(path.join(dir, 'd_2G4_01.Tx.csv'), tx1);
  fs.writeFileSync(path.join(dir, 'd_2G4_01.Rx.csv'), `${RX_HEADER}\n`);
  // The v2 files say the same with more columns; they must not be read twice.
  fs.writeFileSync(path.join(dir, 'd_2G4_00.Txv2.csv'), 'start_tx_time,end_tx_time\n1,2\n');
  return dir;
}

test('a Tx dump: times, carrier, address, modulation, power, abort (TIME_NEVER is Infinity) and the packet', () => {
  const tx = parseTxDump(tx0);
  assert.equal(tx.length, 3);
  assert.deepEqual({ ...tx[0], packet: [...tx[0].packet] }, {
    startUs: 1000, endUs: 1119, centerMHz: 2, phyAddress: 0x8e89bed6, modulation: 0x10, powerDbm: -4, abortUs: Infinity,
    packet: [0x42, 0x08, 0x01, 0x00, 0x00, 0x0b, 0xac, 0x5e, 0x11, 0x22],
  });
  assert.equal(tx[2].abortUs, 2300);
  // end_time is the last µs, inclusive; an abort stops the transmitter there.
  assert.deepEqual(tx.map(txAirUs), [120, 120, 60]);
  assert.deepEqual(parseTxDump(tx1).map(txAirUs), [56, 88]);
});

test('an Rx dump: how long the receiver was open, by how each attempt ended', () => {
  const rx = parseRxDump(rx0);
  assert.equal(rx.length, 5, 'the line cut short is left out');
  assert.equal(rx[0].scanDurationUs, Infinity);
  assert.equal(rx[1].abortUs, Infinity);
  assert.deepEqual(rx.map((r) => r.status), [4, 4, 1, 3, 2]);
  assert.deepEqual([...rx[2].packet], [0x02, 0x01, 0xaa, 0xbb, 0xcc, 0xdd]);
  assert.equal(rx[2].txNbr, 1);
  assert.equal(rx[2].rssiDbm, -60);
  // No sync: until the search ended (rx_time_stamp); a reception: through the packet's last µs,
  // the header's on a header error, or to the abort.
  assert.deepEqual(rx.map(rxListenUs), [65, 10000, 120, 56, 100]);
});

test('the CSV reader keeps quoted commas (Rxv2\'s address list) and trims the headers\' spaces', () => {
  const rows = parseCsv('start_time,n_addr,phy_address[], modulation\n7,2,"[0x8e89bed6,0x12345678]", 16\n');
  assert.deepEqual(rows, [{ start_time: '7', n_addr: '2', 'phy_address[]': '[0x8e89bed6,0x12345678]', modulation: '16' }]);
});

test('per device figures: packets, air time by power, listening, and the listening right after a packet', () => {
  const dir = fixtureDir('figures');
  fs.writeFileSync(path.join(dir, AIR_DEVICES_FILE), JSON.stringify(['beacon', 'scanner']));
  assert.deepEqual(airFigures(dir), [
    { device: 0, name: 'beacon', txPackets: 3, txUs: 300, txUsByPowerDbm: { '-4': 120, '0': 180 }, rxUs: 10341, rxAfterTxUs: 65, rxPackets: 1 },
    { device: 1, name: 'scanner', txPackets: 2, txUs: 144, txUsByPowerDbm: { '4': 56, '8': 88 }, rxUs: 0, rxAfterTxUs: 0, rxPackets: 0 },
  ]);
  // Without the names file the devices are their numbers only.
  assert.equal(deviceFigures(3, parseTxDump(tx1), []).name, undefined);
});

test('TX charge: each power\'s air time at the current of the nearest table entry at or above it', () => {
  const table = { '-40': 2.0, '-8': 4.0, '-4': 4.5, '0': 5.0, '4': 7.0, '8': 14.0 };
  // mA × µs = nC: 120 µs at 4.5 mA + 180 µs at 5 mA.
  assert.equal(txChargeUc({ txUsByPowerDbm: { '-4': 120, '0': 180 } }, table), (120 * 4.5 + 180 * 5) / 1000);
  // 3 dBm draws what 4 dBm does; -20 what -8 does.
  assert.equal(txChargeUc({ txUsByPowerDbm: { '3': 1000, '-20': 1000 } }, table), (7 + 4) * 1000 / 1000);
  assert.equal(txChargeUc({ txUsByPowerDbm: {} }, table), 0);
  assert.throws(() => txChargeUc({ txUsByPowerDbm: { '10': 5 } }, table), /no TX current at or above 10 dBm/);
});

// What BabbleSim's dump_post_process/csv2pcap -es writes for the two Tx dumps above (generated
// with it once): the file header, then every packet of both devices by start time, a tie to the
// lower device.
const CSV2PCAP =
  'd4c3b2a1020004000000000000000000000200000001000000000000e8030000180000001800000000fc0000000000000200d6be898e' +
  '42080100000bac5e112200000000dc0500001600000016000000130400000000000002401b4a65500e05010203040506000000005406' +
  '000018000000180000000c000000000000000200d6be898e42080100000bac5e33440000000054060000140000001400000000080000' +
  '000000000200d6be898e0201aabbccdd00000000c0080000180000001800000027000000000000000200d6be898e42080100000bac5e' +
  '5566';

test('the pcap is the one BabbleSim\'s csv2pcap writes: LE LL with the pseudo-header, all devices by time', () => {
  const dir = fixtureDir('pcap');
  assert.equal(writeAirPcap(dir), 5);
  const bytes = fs.readFileSync(path.join(dir, 'air.pcap'));
  assert.equal(bytes.toString('hex'), CSV2PCAP);
  const { linkType, records } = readPcap(bytes);
  assert.equal(linkType, 256);
  assert.deepEqual(records.map((r) => [r.us, r.rfChannel, r.powerDbm, r.flags.toString(16), r.accessAddress.toString(16)]), [
    [1000, 0, -4, '2', '8e89bed6'],
    [1500, 19, 4, '4002', '50654a1b'], // 2M: PHY bits 14-15 = 1; signal power valid
    [1620, 12, 0, '2', '8e89bed6'],
    [1620, 0, 8, '2', '8e89bed6'],
    [2240, 39, 0, '2', '8e89bed6'],
  ]);
  // A base time moves every stamp.
  assert.equal(readPcap(airPcap([parseTxDump(tx0)], 5_000_000)).records[0].us, 5_001_000);
});

test('a coded packet is its FEC1 (the CI byte) and its FEC2 in one record; one cut before its FEC2 is left out', () => {
  const coded = parseTxDump([
    TX_HEADER,
    `100,179,2.000000,0x8E89BED6,80,0.000000,${NEVER},100,1,00`,
    `180,399,2.000000,0x8E89BED6,80,0.000000,${NEVER},180,6,02 01 AA BB CC DD`,
    '1000,1079,2.000000,0x8E89BED6,80,0.000000,1050,1000,1,00',
    `2000,2119,26.000000,0x8E89BED6,16,0.000000,${NEVER},2000,10,42 08 01 00 00 0B AC 5E 11 22`,
  ].join('\n'));
  const { records } = readPcap(airPcap([coded]));
  assert.deepEqual(records.map((r) => [r.us, r.flags.toString(16), r.packet.toString('hex')]), [
    [100, '8002', '000201aabbccdd'],
    [2000, '2', '42080100000bac5e1122'],
  ]);
});

test('clearing a dump directory takes away an earlier run\'s dumps only', () => {
  const dir = fixtureDir('clear');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
  writeAirPcap(dir);
  clearAirDump(dir);
  assert.deepEqual(fs.readdirSync(dir), ['notes.txt']);
});

test('--air-dump is BabbleSim\'s only: another target or device is a usage error', async () => {
  const run = await beacon(['run', path.join(repo, 'examples', 'hello.ts'), '--air-dump', path.join(tempDir, 'no')]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--air-dump: only BabbleSim records the air \(--target bsim\)/);
  const qemu = await beacon(['run', path.join(repo, 'examples', 'hello.ts'), '--target', 'zephyr-qemu', '--air-dump', path.join(tempDir, 'no')]);
  assert.equal(qemu.status, 2);
  const t = await beacon(['test', path.join(repo, 'examples', 'testing'), '--air-dump', path.join(tempDir, 'no')]);
  assert.equal(t.status, 2);
  assert.match(t.stderr, /--air-dump: only BabbleSim records the air \(--device bsim/);
  assert.equal(fs.existsSync(path.join(tempDir, 'no')), false);
});

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');

// Every 100 ms, scannable, on the three advertising channels; the UUID marks its packets.
const UUID = 'e2c56db5dffb48d2b060d0f5a71096e0';
const ADVERTISER = `ble.advertise(ble.build.iBeacon('${UUID}', 1, 2, -59)).interval(100);\nprint('advertising');\n`;

test('beacon run --target bsim --air-dump: the dump, a pcap of every packet, and figures that fit the app\'s interval', { skip: missing }, async () => {
  const app = path.join(tempDir, 'advertiser.ts');
  fs.writeFileSync(app, ADVERTISER);
  const dir = path.join(tempDir, 'run-dump');
  const r = await beacon(['run', app, '--engine', 'jerryscript', '--target', 'bsim', '--air', 'radio', '--for', '10s', '--air-dump', dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^advertising$/m);
  assert.match(r.stderr, /^beacon: the air as BabbleSim recorded it is in .*: \d+ packets in air\.pcap, d0 \d+ sent/m);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, AIR_DEVICES_FILE), 'utf8')), ['d0']);

  const txRows = parseTxDump(fs.readFileSync(path.join(dir, 'd_2G4_00.Tx.csv'), 'utf8'));
  const pcap = fs.readFileSync(path.join(dir, 'air.pcap'));
  assert.equal(pcap.readUInt32LE(0), 0xa1b2c3d4);
  assert.equal(pcap.readUInt32LE(20), 256);
  const { records } = readPcap(pcap);
  assert.equal(records.length, txRows.length);
  assert.deepEqual(records.map((r) => r.us), txRows.map((t) => t.startUs));

  // An advertising event every 100 ms plus the controller's advDelay (0 to 10 ms, 5 on average),
  // one packet on each of the three channels.
  const adv = records.filter((p) => p.accessAddress === 0x8e89bed6 && p.packet.toString('hex').includes(UUID));
  const expected = (10_000 / (100 + 5)) * 3;
  assert.ok(Math.abs(adv.length - expected) <= expected * 0.05, `${adv.length} advertising packets in 10 s, expected about ${expected.toFixed(0)}`);
  assert.deepEqual([...new Set(adv.map((p) => p.rfChannel))].sort((a, b) => a - b), [0, 12, 39]);

  // The figures say the same: every packet sent, the air time of each (all the same length), and
  // an advertiser listens only right after its packets (for scan requests).
  const [fig] = airFigures(dir);
  assert.equal(fig.name, 'd0');
  assert.equal(fig.txPackets, txRows.length);
  assert.equal(fig.txUs, txRows.reduce((s, t) => s + txAirUs(t), 0));
  assert.equal(Object.values(fig.txUsByPowerDbm).reduce((a, b) => a + b, 0), fig.txUs);
  assert.ok(fig.rxUs > 0);
  assert.equal(fig.rxAfterTxUs, fig.rxUs);

  // Wireshark's reader opens it, when there is one here.
  let tshark = true;
  try {
    execFileSync('tshark', ['--version'], { stdio: 'ignore' });
  } catch {
    tshark = false;
  }
  if (tshark) {
    const lines = execFileSync('tshark', ['-r', path.join(dir, 'air.pcap')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
    assert.equal(lines.length, records.length);
    assert.match(lines[0], /LE LL/);
  }
});

test('beacon-tools/testing on bsim with airDump: each run keeps its dump under the test\'s name', { skip: missing }, async (t) => {
  const root = path.join(tempDir, 'world-dumps');
  const w = world(t, { device: 'bsim', engine: 'jerryscript', air: 'radio', airDump: root });
  w.device('tag', { app: { source: ADVERTISER } });
  const first = await w.run('2s');
  const second = await w.run('2s');
  assert.equal(first.exitCode, 0, first.stderr);
  const name = t.name.replace(/[^\w.-]+/g, '_');
  assert.equal(first.airDump, path.join(root, name));
  assert.equal(second.airDump, path.join(root, `${name}.2`));
  for (const dir of [first.airDump!, second.airDump!]) {
    const [fig] = airFigures(dir);
    assert.equal(fig.name, 'tag');
    assert.ok(fig.txPackets > 0);
    assert.equal(readPcap(fs.readFileSync(path.join(dir, 'air.pcap'))).records.length, fig.txPackets);
  }
});
