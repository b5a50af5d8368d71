// Figures of the BLE air between firmwares on BabbleSim against the simulator's air model
// (bench/ble-air-firmware.sh says what each is). Simulated times: the same on every machine.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist', 'src');
const { ensureZephyrImage, ensureRigImage } = require(path.join(dist, 'firmware', 'zephyr.js'));
const { runBsimWorld } = require(path.join(dist, 'firmware', 'bsimWorld.js'));
const { bsimUpload, packageSha } = require(path.join(dist, 'firmware', 'bsimUpload.js'));
const { loadScenario } = require(path.join(dist, 'world', 'scenario.js'));
const { lowerScenario } = require(path.join(dist, 'world', 'scenarioLower.js'));
const beaconJs = path.join(root, 'bindings-ts', 'bin', 'beacon.js');

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

function beacon(args) {
  const r = spawnSync(process.execPath, [beaconJs, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`beacon ${args.join(' ')}: ${r.stderr}`);
  return r;
}

const ADV_ACCESS_ADDRESS = '0x8E89BED6';
const CHANNEL_OF_MHZ = { 2: 37, 26: 38, 80: 39 };

/** The packets a device sent (the phy's d_2G4_NN.Tx.csv): time in us, channel, advertising or
 * not, and the advertising data (after the PDU header and the address, before the CRC). */
function sent(dumpDir, device) {
  const file = path.join(dumpDir, `d_2G4_${String(device).padStart(2, '0')}.Tx.csv`);
  const lines = fs.readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l !== '');
  return lines.map((l) => {
    const c = l.split(',');
    const bytes = c[9].trim().split(' ').map((h) => parseInt(h, 16));
    const adv = c[3] === ADV_ACCESS_ADDRESS;
    return {
      us: Number(c[0]),
      channel: CHANNEL_OF_MHZ[Math.round(Number(c[2]))] ?? 0,
      adv,
      data: adv ? Buffer.from(bytes.slice(8, 2 + bytes[1])).toString('hex') : '',
    };
  });
}

/** Advertising events of the packets whose data contains `marker`: packets within 3 ms of the
 * event's first make one event; each event with the channels it used, in order. */
function events(packets, marker) {
  const out = [];
  for (const p of packets.filter((q) => q.adv && q.data.includes(marker))) {
    const last = out[out.length - 1];
    if (last && p.us - last.us < 3000) last.channels.push(p.channel);
    else out.push({ us: p.us, channels: [p.channel] });
  }
  return out;
}

const IBEACON = '4c000215';
const URL_FRAME = 'aafe10';

async function compare(work, image, worldFile = path.join(root, 'tests', 'apps', 'ble-two-devices.world.json')) {
  const app = path.join(root, 'bench', 'apps', 'ble-air-compare.js');
  const pkg = path.join(work, 'compare.bapp');
  beacon(['build', app, '--api', '0.2.6', '--engine', 'jerryscript', '-o', pkg]);
  // The simulator: what the scanner prints, and the advertiser's events from the trace.
  const trace = path.join(work, 'sim.trace');
  const sim = beacon(['run', pkg, '--world', worldFile, '--for', '45s', '--trace', trace]);
  const simLines = sim.stdout.split('\n').filter((l) => l.startsWith('[scanner]'));
  const simAdv = fs.readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('"ev":"ble-adv"'))
    .map((l) => JSON.parse(l)).filter((r) => r.dev === 'beacon');
  const simEvents = simAdv.filter((r) => r.data.includes(IBEACON));
  const simUrlEvents = simAdv.filter((r) => r.data.includes(URL_FRAME));
  // The firmwares: the same scenario, each device a firmware of its own, the phy's dumps kept.
  const lowered = lowerScenario(loadScenario(worldFile), worldFile);
  const dumpDir = path.join(work, 'dump');
  const started = process.hrtime.bigint();
  const fw = await runBsimWorld(image, {
    script: lowered.script, packages: [pkg], args: ['--for', '45000', '--utc', '1767225600000'],
    lengthMs: 46000, dumpDir,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (fw.status !== 0) throw new Error(`the firmwares failed: ${fw.stderr}`);
  const fwLines = fw.stdout.split('\n').filter((l) => l.startsWith('[scanner]'));
  if (worldFile.includes('distance-')) return { simLines, fwLines };
  const airEvents = events(sent(dumpDir, 0), IBEACON);
  const urlEvents = events(sent(dumpDir, 0), URL_FRAME);

  // Advertising events per second of the 100 ms set, over whole events between the first and
  // the last (the app stops at 40 s).
  const rate = (times) => ((times.length - 1) * 1000) / (times[times.length - 1] - times[0]);
  const bsimRate = rate(airEvents.map((e) => e.us / 1000));
  figure('ble_air.adv_events_per_s.100ms.bsim', bsimRate.toFixed(3), '/s');
  figure('ble_air.adv_events_per_s.100ms.model', rate(simEvents.map((e) => e.t)).toFixed(3), '/s');
  figure('ble_air.adv_events_per_s.100ms.interval_only', (10).toFixed(3), '/s');
  figure('ble_air.adv_events_per_s.1000ms.bsim', rate(urlEvents.map((e) => e.us / 1000)).toFixed(3), '/s');
  figure('ble_air.adv_events_per_s.1000ms.model', rate(simUrlEvents.map((e) => e.t)).toFixed(3), '/s');
  const gaps = airEvents.slice(1).map((e, i) => (e.us - airEvents[i].us) / 1000 - 100);
  figure('ble_air.adv_delay_mean.bsim', (gaps.reduce((a, b) => a + b, 0) / gaps.length).toFixed(2), 'ms');
  figure('ble_air.adv_delay_range.bsim', `${Math.min(...gaps).toFixed(2)}..${Math.max(...gaps).toFixed(2)}`, 'ms');
  const orders = new Set(airEvents.map((e) => e.channels.join(',')));
  figure('ble_air.adv_channels.bsim', [...orders].join(' | '), 'channels per event');
  // What the scanning app heard, line by line (the simulator's first).
  for (let i = 0; i < Math.max(simLines.length, fwLines.length); i++) {
    const key = (simLines[i] ?? fwLines[i]).replace(/^\[scanner\] ([^:]+):.*$/, '$1').replace(/\W+/g, '_');
    figure(`ble_air.scan.${key}.model`, JSON.stringify(simLines[i] ?? ''), '');
    figure(`ble_air.scan.${key}.bsim`, JSON.stringify(fwLines[i] ?? ''), '');
  }
  figure('ble_air.wall_per_simulated_minute', Math.round((wallMs * 60000) / 46000), 'ms');
  return bsimRate;
}

/** The passive scan at distances: records heard and their mean RSSI, model against firmwares
 * (BabbleSim's multiatt channel with the model's path loss, its BLE_simple modem). */
async function distances(work, image) {
  for (const metres of [5, 50, 200, 400, 500, 700]) {
    const worldFile = path.join(work, `distance-${metres}.world.json`);
    fs.writeFileSync(worldFile, JSON.stringify({
      description: `two devices ${metres} m apart`, origin: { lat: 52.0, long: 4.0 }, seed: 11,
      devices: [{ name: 'beacon', profile: 'ble-beacon', position: { x: 0, y: 0 } },
        { name: 'scanner', profile: 'lte-beacon', position: { x: metres, y: 0 } }],
    }));
    const { simLines, fwLines } = await compare(work, image, worldFile);
    const passive = (lines) => {
      const m = /passive 20 s: records (\d+).*mean rssi (\S+)/.exec(lines[0] ?? '');
      return m ? `${m[1]} records, mean rssi ${m[2]}` : '?';
    };
    figure(`ble_air.distance.${metres}m.model`, passive(simLines), '');
    figure(`ble_air.distance.${metres}m.bsim`, passive(fwLines), '');
  }
}

/** `unconnected`: the 100 ms set's events per second with no client (compare's). */
async function lostWhileConnected(work, image, unconnected) {
  const rigImage = await ensureRigImage();
  const adv = path.join(work, 'advertiser.bapp');
  beacon(['build', path.join(root, 'bench', 'apps', 'ble-air-advertiser.js'), '--engine', 'jerryscript', '-o', adv]);
  const tracker = path.join(work, 'tracker.bapp');
  beacon(['build', path.join(root, 'examples', 'asset-tracker.ts'), '--engine', 'jerryscript', '-o', tracker]);
  const dumpDir = process.env.BLE_AIR_KEEP ?? path.join(work, "dump-connected");
  const flashFile = path.join(work, 'beacon.flash');
  // The advertiser goes into the beacon's app store over BLE first.
  const installed = await bsimUpload({ beaconImage: image, rigImage, flashFile, package: adv, forMs: 5000 });
  if (!installed.rig.some((e) => e.event === 'install' && e.rc === 0)) throw new Error(`install failed: ${JSON.stringify(installed.rig)}`);
  // Then the beacon boots it and offers its upload service; the rig connects, uploads a part of
  // a package and stays connected (30 ms interval) until the run ends.
  const r = await bsimUpload({
    beaconImage: image, rigImage, flashFile, forMs: 30000, beaconArgs: ['--air', 'radio'],
    rigCommand: ['hold', tracker, '--sha', packageSha(tracker), '--bytes', '512'], dumpDir,
  });
  if (!r.rig.some((e) => e.event === 'holding')) throw new Error(`the rig did not connect: ${JSON.stringify(r.rig)}\n${r.beacon.stderr}`);
  const link = sent(dumpDir, 1).filter((p) => !p.adv);
  const from = link[0].us / 1000;
  const to = link[link.length - 1].us / 1000;
  const ev = events(sent(dumpDir, 0), IBEACON).map((e) => e.us / 1000);
  const during = ev.filter((t) => t >= from && t <= to);
  const expected = ((to - from) * unconnected) / 1000;
  figure('ble_air.connected.seconds', ((to - from) / 1000).toFixed(1), 's');
  figure('ble_air.connected.adv_events_per_s.during', ((during.length * 1000) / (to - from)).toFixed(3), '/s');
  figure('ble_air.connected.adv_events_lost', `${Math.max(0, Math.round(expected - during.length))} of ${Math.round(expected)}`, 'events');
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-ble-air-bench-'));
  try {
    const image = await ensureZephyrImage('bsim', 'jerryscript');
    const unconnected = await compare(work, image);
    await distances(work, image);
    await lostWhileConnected(work, image, unconnected);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
