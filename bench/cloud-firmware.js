// Figures of the firmware's cloud client on nrf52_bsim (bench/cloud-firmware.sh says what each is).
'use strict';
const { execFile, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist', 'src');
const { startCloud } = require(path.join(dist, 'cloud', 'service.js'));
const { simDeviceId } = require(path.join(dist, 'cli', 'runCloud.js'));
const cli = path.join(root, 'bindings-ts', 'bin', 'beacon.js');
const app = path.join(root, 'examples', 'cloud-report.ts');

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

function beacon(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`beacon ${args.join(' ')}: ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A TCP relay to port that counts each connection's bytes and wall time. */
function relay(port) {
  const connections = [];
  const server = net.createServer((down) => {
    const c = { up: 0, down: 0, opened: process.hrtime.bigint(), closed: undefined };
    connections.push(c);
    const up = net.connect(port, '127.0.0.1');
    down.on('data', (b) => { c.up += b.length; up.write(b); });
    up.on('data', (b) => { c.down += b.length; down.write(b); });
    const end = () => { c.closed ??= process.hrtime.bigint(); down.destroy(); up.destroy(); };
    down.on('close', end); up.on('close', end); down.on('error', end); up.on('error', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, connections, close: () => server.close() })));
}

function certificate(dir) {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return { cert, key };
}

/** One sync of cloud-report on the firmware, through the relay: its connection's figures. */
async function sync(work, tls) {
  const cloud = await startCloud({ db: path.join(work, `${tls ? 'tls' : 'plain'}.db`), port: 0, httpPort: 0, tls, log: () => undefined });
  try {
    const creds = await cloud.issueDevice(simDeviceId(0));
    const r = await relay(Number(new URL(cloud.mqttUrl).port));
    const url = `${tls ? 'mqtts' : 'mqtt'}://localhost:${r.port}`;
    const started = process.hrtime.bigint();
    const out = await beacon(['run', app, '--target', 'bsim', '--for', '70min', '--utc', '1767254400000', '--cloud', url,
      '--cloud-secret', creds.password, ...(tls ? ['--cloud-ca', tls.cert] : [])]);
    const runMs = Number(process.hrtime.bigint() - started) / 1e6;
    r.close();
    if (!/^synced after 7 readings$/m.test(out)) throw new Error(`the sync did not go through:\n${out}`);
    const c = r.connections[0];
    return { up: c.up, down: c.down, wallMs: Number(c.closed - c.opened) / 1e6, runMs };
  } finally {
    await cloud.stop();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-cloud-firmware-bench-'));
  try {
    const tls = certificate(work);
    // The image is built by the first run; the figures come from the second of each.
    await sync(work, tls);
    const plain = await sync(work, undefined);
    const secure = await sync(work, tls);
    figure('cloud_firmware_tls_sync_bytes_up', secure.up, 'bytes');
    figure('cloud_firmware_tls_sync_bytes_down', secure.down, 'bytes');
    figure('cloud_firmware_plain_sync_bytes_up', plain.up, 'bytes');
    figure('cloud_firmware_plain_sync_bytes_down', plain.down, 'bytes');
    figure('cloud_firmware_tls_handshake_bytes', secure.up + secure.down - plain.up - plain.down, 'bytes');
    figure('cloud_firmware_tls_sync_wall_ms', secure.wallMs.toFixed(1), 'ms');
    figure('cloud_firmware_plain_sync_wall_ms', plain.wallMs.toFixed(1), 'ms');
    figure('cloud_firmware_tls_handshake_wall_ms', (secure.wallMs - plain.wallMs).toFixed(1), 'ms');
    figure('cloud_firmware_run_wall_ms', secure.runMs.toFixed(0), 'ms');
    const started = process.hrtime.bigint();
    await beacon(['run', app, '--world', path.join(root, 'examples', 'cloud-report.world.json'), '--target', 'bsim']);
    figure('cloud_firmware_report_6h_wall_ms', (Number(process.hrtime.bigint() - started) / 1e6).toFixed(0), 'ms');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
