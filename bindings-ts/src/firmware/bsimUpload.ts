// Uploads over BLE between firmwares on BabbleSim's air: the beacon firmware (nrf52_bsim, its
// flash in a file) takes a package from the rig's phone (tests/rig-bsim), a second firmware that
// finds its upload service, connects, uploads over SMP and installs, as a phone does.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BsimDevice, ChildResult, FirmwareRun, firmwareStatus, runBsim } from './zephyr';

/** What the rig reported, one JSON line each (tests/rig-bsim/src/main.c). */
export interface RigEvent {
  event: string;
  t?: number;
  [key: string]: unknown;
}

export interface BsimUploadOptions {
  beaconImage: string;
  rigImage: string;
  /** The beacon's flash (app store and storage records): kept in this file across runs. */
  flashFile: string;
  /** The package the rig uploads; none: the rig only listens (its command given in rigArgs). */
  package?: string;
  /** How long the beacon runs, simulated ms. */
  forMs: number;
  /** Options of the beacon's run (world_main_zephyr.c), e.g. --power-cut-after N. */
  beaconArgs?: string[];
  /** Options of the rig's upload command (--chunk, --stop-after, --no-install, --interval-ms). */
  rigArgs?: string[];
  /** The rig's whole command instead of an upload (e.g. ['scan', '5000']). */
  rigCommand?: string[];
  utcMs?: number;
  /** Keep the physical layer's dumps of every packet on the air here (runBsim). */
  dumpDir?: string;
}

export interface BsimUploadRun {
  beacon: FirmwareRun;
  rig: RigEvent[];
  rigStatus: number;
}

/** SHA-256 of a package: what `beacon upload` names it by ("sha"), so an upload can resume. */
export function packageSha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Run the beacon (device 0) and the rig (device 1) on one simulated air. */
export async function bsimUpload(o: BsimUploadOptions): Promise<BsimUploadRun> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-upload-'));
  try {
    const out = path.join(work, 'stdout');
    const err = path.join(work, 'stderr');
    const rigOut = path.join(work, 'rig.jsonl');
    const beacon: BsimDevice = {
      image: o.beaconImage,
      flashFile: o.flashFile,
      // Storage on the board's partition too: the flash file is the device's whole flash.
      args: ['--stdout', out, '--stderr', err, '--listen', '--for', String(o.forMs), '--utc', String(o.utcMs ?? 1767225600000),
        '--storage', 'board', ...(o.beaconArgs ?? [])],
    };
    const command = o.rigCommand ?? ['upload', path.resolve(o.package ?? ''), '--sha', packageSha(o.package ?? ''), ...(o.rigArgs ?? [])];
    const rig: BsimDevice = { image: o.rigImage, args: ['--out', rigOut, ...command] };
    // A little longer than the beacon's run, so that it ends on its own (the rig stays on the
    // air, idle, until the simulation ends).
    const [b, r]: ChildResult[] = await runBsim([beacon, rig], o.forMs + 1000, { dumpDir: o.dumpDir });
    const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    return {
      beacon: { status: b.code, stdout: read(out), stderr: read(err) + (firmwareStatus(b.code) ? '' : b.stderr) },
      rig: read(rigOut).split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as RigEvent),
      rigStatus: r.code,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
