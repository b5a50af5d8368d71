// `beacon upload app --device bsim[:FLASH] [--for MS]`: the upload over BLE on BabbleSim's air,
// between the beacon firmware built for nrf52_bsim (its flash kept in FLASH, so a later upload
// or boot finds what this one installed) and the rig's phone, the second firmware that uploads
// as a phone does (src/firmware/bsimUpload.ts). After the install the device runs for --for
// (10 s by default) of simulated time; what it printed follows the install's answer.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UsageError } from './args';
import { CliIo } from './io';

export interface BsimUploadRequest {
  device: string;       // "bsim" or "bsim:FLASH"
  pkgFile: string;      // the package, built
  engine: 'duktape' | 'jerryscript';
  forMs: number;
}

export function bsimFlashOf(device: string): string {
  const rest = device.slice('bsim'.length);
  if (rest !== '' && !rest.startsWith(':')) throw new UsageError(`--device '${device}': expected bsim or bsim:FLASH-FILE`);
  const file = rest.slice(1);
  return path.resolve(file !== '' ? file : 'beacon-bsim.flash');
}

export async function uploadOverBsim(r: BsimUploadRequest, io: CliIo): Promise<number> {
  const flash = bsimFlashOf(r.device);
  const fw = await import('../firmware/zephyr');
  const { bsimUpload } = await import('../firmware/bsimUpload');
  const note = (line: string): void => io.err(`beacon: ${line}\n`);
  const beaconImage = await fw.ensureZephyrImage('bsim', r.engine, { onNote: note });
  const rigImage = await fw.ensureRigImage({ onNote: note });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-upload-bsim-'));
  try {
    const run = await bsimUpload({ beaconImage, rigImage, flashFile: flash, package: r.pkgFile, forMs: r.forMs });
    const ev = (name: string) => run.rig.find((e) => e.event === name);
    const error = ev('error');
    if (error !== undefined) {
      io.err(`beacon upload: bsim: the rig's ${String(error.what)} failed (${String(error.code)})${error.msg ? `: ${String(error.msg)}` : ''}\n`);
      return 1;
    }
    const connected = ev('connected');
    const uploaded = ev('uploaded');
    const install = ev('install');
    if (connected === undefined || uploaded === undefined || install === undefined) {
      io.err(`beacon upload: bsim: the upload did not finish\n${run.beacon.stderr}`);
      return 1;
    }
    io.err(
      `beacon upload: ${String(uploaded.len)} bytes to nrf52_bsim over BLE (ATT MTU ${String(connected.mtu)}, ` +
        `${String(connected.interval_ms)} ms interval) in ${String(uploaded.ms)} ms of simulated time; asking the device to switch\n`,
    );
    if (install.rc !== 0) {
      io.err(`beacon upload: the device refused the package: ${String(install.msg)}\n`);
      return 1;
    }
    io.out(`${String(install.msg)}\n`);
    io.out(run.beacon.stdout);
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
