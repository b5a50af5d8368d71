// `beacon trace <package> [--log file] [--map file]`: a device log with error locations shown in
// the app's source.
import * as fs from 'fs';
import { ParsedArgs, stringOption, UsageError } from './args';
import { existingFile } from './common';
import { CliIo } from './io';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (b: Buffer) => chunks.push(b));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

export async function traceCommand(args: ParsedArgs, io: CliIo, stdin: () => Promise<string> = readStdin): Promise<number> {
  const pkg = existingFile(args.positionals[0]);
  const mapArg = stringOption(args, 'map');
  const logArg = stringOption(args, 'log');
  const { loadPackageMap, mapFileFor, rewriteLocations } = await import('../compiler/light');
  const map = loadPackageMap(pkg, mapArg === undefined ? mapFileFor(pkg) : existingFile(mapArg));
  if (typeof map === 'string') throw new UsageError(map, false);
  const log = logArg === undefined ? await stdin() : fs.readFileSync(existingFile(logArg), 'utf8');
  io.out(rewriteLocations(log, map));
  return 0;
}
