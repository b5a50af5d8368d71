// `beacon cloud load`: the command line of the load generator (src/cloud/loadGen.ts). Parses
// the options (a bad one is a usage error naming it), runs the load, prints the report: one
// line per figure, or one JSON object with --json. Exit status 1 when not every event was
// acknowledged and stored once.
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { parseInterval } from './interval';
import { CliIo } from './io';
import type { LoadOptions } from '../cloud/loadGen';

function countOption(args: ParsedArgs, name: string): number | undefined {
  const v = stringOption(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, not '${v}'`);
  return Number(v);
}

function intervalOption(args: ParsedArgs, name: string): number | undefined {
  const v = stringOption(args, name);
  if (v === undefined) return undefined;
  try {
    return parseInterval(v);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
}

export async function loadCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const extra = args.positionals[1];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const devices = countOption(args, 'devices');
  if (devices === undefined) throw new UsageError('cloud load needs --devices: how many devices to run');
  const pid = stringOption(args, 'mosquitto-pid');
  const json = flagOption(args, 'json');
  const abort = new AbortController();
  const options: LoadOptions = {
    broker: stringOption(args, 'broker') ?? '',
    db: stringOption(args, 'db') ?? '',
    devices,
    events: countOption(args, 'events'),
    batch: countOption(args, 'batch'),
    payload: countOption(args, 'payload'),
    window: countOption(args, 'window'),
    connections: countOption(args, 'connections'),
    processes: countOption(args, 'processes'),
    periodMs: intervalOption(args, 'period'),
    durationMs: intervalOption(args, 'duration'),
    timeoutMs: intervalOption(args, 'timeout'),
    holdMs: intervalOption(args, 'hold'),
    tls: flagOption(args, 'tls'),
    ca: stringOption(args, 'ca'),
    mosquittoDir: stringOption(args, 'mosquitto-dir'),
    mosquittoPid: pid === undefined ? undefined : /^[0-9]+$/.test(pid) ? Number(pid) : pid,
    log: (line) => io.err(`load: ${line}\n`),
    signal: abort.signal,
  };
  const { LoadOptionError, reportLines, runLoad } = await import('../cloud/loadGen');
  const interrupt = (): void => abort.abort();
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    const report = await runLoad(options);
    if (json) io.out(JSON.stringify(report) + '\n');
    else io.out(reportLines(report).map((l) => l + '\n').join(''));
    if (!report.ok) io.err(`beacon cloud load: ${report.failure}\n`);
    return report.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof LoadOptionError) throw new UsageError(err.message);
    io.err(`beacon cloud load: ${(err as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
