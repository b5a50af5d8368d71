// `beacon upload <app.ts|app.js|app.bapp> --device udp:HOST[:PORT]|serial:/dev/tty...|ble:NAME|bsim[:FLASH]
//  [--api V] [--engine E] [--sign key.pem] [--timeout MS] [--retries N] [--for MS]`
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { CliIo, processIo } from './io';

function positiveInt(option: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${option} must be a whole number of at least ${min}, not '${text}'`);
  return Number(text);
}

function kB(n: number): string {
  return `${(n / 1000).toFixed(1)} kB`;
}

/**
 * Progress on stderr: a bar redrawn in place on a terminal; elsewhere (a log, a test) a line at
 * every quarter, so that a pipe is not filled with carriage returns.
 */
export function progressReporter(io: CliIo, interactive: boolean): { update(done: number, total: number): void; end(): void } {
  let lastQuarter = -1;
  let drawn = false;
  return {
    update(done, total) {
      const pct = total === 0 ? 100 : Math.floor((done * 100) / total);
      if (interactive) {
        const width = 30;
        const fill = Math.round((pct * width) / 100);
        io.err(`\rupload [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${String(pct).padStart(3)}% ${kB(done)} of ${kB(total)}`);
        drawn = true;
        return;
      }
      const quarter = Math.floor(pct / 25);
      if (quarter > lastQuarter) {
        lastQuarter = quarter;
        io.err(`upload: ${quarter * 25}% (${done} of ${total} bytes)\n`);
      }
    },
    end() {
      if (drawn) io.err('\n');
      drawn = false;
    },
  };
}

export async function uploadCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const input = existingFile(args.positionals[0]);
  if (!isSource(input) && !input.endsWith('.bapp')) {
    throw new UsageError(`${args.positionals[0]}: expected a .ts or .js source or a .bapp package`);
  }
  const deviceText = stringOption(args, 'device');
  if (deviceText === undefined) throw new UsageError('missing --device (udp:HOST[:PORT], serial:/dev/tty..., ble:NAME or bsim[:FLASH])');
  if (deviceText === 'bsim' || deviceText.startsWith('bsim:')) return uploadToBsim(args, input, deviceText, io);
  const smp = await import('../smp');
  let device;
  try {
    device = smp.parseDevice(deviceText);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--device ${err.message}`);
    throw err;
  }
  const timeoutMs = positiveInt('--timeout', stringOption(args, 'timeout'), 2000, 1);
  const retries = positiveInt('--retries', stringOption(args, 'retries'), 3, 0);
  const apiVersion = apiOption(args);
  const engine = engineOption(args);
  const signKey = stringOption(args, 'sign');
  if (!isSource(input) && (engine !== undefined || signKey !== undefined)) {
    throw new UsageError('--engine and --sign apply to a source, not to a built package', false);
  }

  let workDir: string | undefined;
  let transport: Awaited<ReturnType<typeof smp.openDevice>> | undefined;
  const fail = (line: string): number => {
    io.err(`beacon upload: ${line}\n`);
    return 1;
  };
  try {
    // The device first: a missing BLE stack or an unreachable port is said before a build.
    transport = await smp.openDevice(device);
    let pkgFile = input;
    if (isSource(input)) {
      const compiler = await import('../compiler/light');
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-upload-'));
      pkgFile = path.join(workDir, path.basename(input).replace(/\.[^.]+$/, '') + '.bapp');
      const r = await compiler.compileApp({
        entry: input,
        apiVersion,
        engine: engine ?? compiler.DEFAULT_ENGINE,
        outFile: pkgFile,
        ...(signKey ? { signKey: existingFile(signKey) } : {}),
        onNote: (line) => io.err(`beacon: ${line}\n`),
      });
      printDiagnostics(io, r.warnings, (d) => compiler.formatDiagnostic(d));
    }
    const data = new Uint8Array(fs.readFileSync(pkgFile));
    const { readPackageHeader } = await import('../compiler/light');
    const header = readPackageHeader(data);
    if (typeof header === 'string') return fail(`${args.positionals[0]}: ${header}`);

    const client = new smp.SmpClient(transport, { timeoutMs, retries });
    const progress = progressReporter(io, io === processIo && process.stderr.isTTY === true);
    const started = Date.now();
    let result;
    try {
      result = await smp.uploadPackage(client, data, {
        onProgress: (done, total) => progress.update(done, total),
        onNote: (line) => {
          progress.end();
          io.err(`beacon upload: ${line}\n`);
        },
      });
    } finally {
      progress.end();
    }
    const seconds = (Date.now() - started) / 1000;
    const resumed = result.resumedAt > 0 ? `, resumed at byte ${result.resumedAt}` : '';
    io.err(
      `beacon upload: ${data.length} bytes to ${transport.description} in ${seconds.toFixed(2)} s ` +
        `(${result.requests} requests of up to ${result.chunkSize} bytes${resumed}); asking the device to switch\n`,
    );
    const verdict = await smp.installPackage(client, data, Math.max(timeoutMs, 10_000));
    io.out(`${verdict}\n`);
    return 0;
  } catch (err) {
    const smpMod = smp;
    if (
      err instanceof smpMod.DeviceError ||
      err instanceof smpMod.UploadError ||
      err instanceof smpMod.SmpTimeoutError ||
      err instanceof smpMod.SmpError
    ) {
      return fail(err.message);
    }
    if (err instanceof smpMod.InstallRefused) return fail(`the device refused the package: ${err.message}`);
    return reportFailure(io, 'upload', err);
  } finally {
    await transport?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** The upload over BLE on BabbleSim's air (uploadBsim.ts). The firmware is built for the
 * package's engine (a source is built for JerryScript, the device's). */
async function uploadToBsim(args: ParsedArgs, input: string, device: string, io: CliIo): Promise<number> {
  const { bsimFlashOf, uploadOverBsim } = await import('./uploadBsim');
  bsimFlashOf(device);
  const forText = stringOption(args, 'for');
  const { parseInterval } = await import('./interval');
  let forMs = 10_000;
  if (forText !== undefined) {
    try {
      forMs = parseInterval(forText);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--for: ${err.message}`);
      throw err;
    }
  }
  const compiler = await import('../compiler/light');
  let workDir: string | undefined;
  try {
    let pkgFile = input;
    let engine = engineOption(args) ?? 'jerryscript';
    if (isSource(input)) {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-upload-'));
      pkgFile = path.join(workDir, path.basename(input).replace(/\.[^.]+$/, '') + '.bapp');
      const signKey = stringOption(args, 'sign');
      const r = await compiler.compileApp({
        entry: input,
        apiVersion: apiOption(args),
        engine,
        outFile: pkgFile,
        ...(signKey ? { signKey: existingFile(signKey) } : {}),
        onNote: (line) => io.err(`beacon: ${line}\n`),
      });
      printDiagnostics(io, r.warnings, (d) => compiler.formatDiagnostic(d));
    } else {
      const header = compiler.readPackageHeader(new Uint8Array(fs.readFileSync(pkgFile)));
      if (typeof header !== 'string') engine = header.engine ?? engine;
    }
    return await uploadOverBsim({ device, pkgFile, engine, forMs }, io);
  } catch (err) {
    return reportFailure(io, 'upload', err);
  } finally {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}
