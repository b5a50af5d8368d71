// The `beacon` command line. Exit status: 0 success, 1 failure (build errors, a failed run),
// 2 bad usage.
import * as fs from 'fs';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';
import { commandHelp, CommandSpec, parseArgs, ParsedArgs, UsageError } from './args';
import { buildCommand } from './build';
import { cloudCommand } from './cloud';
import { codegenCommand } from './codegen';
import { CliIo, processIo } from './io';
import { keygenCommand } from './keygen';
import { runCommand } from './run';
import { simCommand } from './sim';
import { studioCommand } from './studio';
import { testCommand } from './test';
import { buildSpec, cloudSpec, codegenSpec, COMMANDS, keygenSpec, mainHelp, runSpec, simSpec, studioSpec, testSpec, traceSpec, uploadSpec } from './specs';
import { traceCommand } from './trace';
import { uploadCommand } from './upload';

type Handler = (args: ParsedArgs, io: CliIo) => Promise<number>;

const HANDLERS: ReadonlyMap<CommandSpec, Handler> = new Map<CommandSpec, Handler>([
  [buildSpec, buildCommand],
  [runSpec, runCommand],
  [simSpec, simCommand],
  [testSpec, testCommand],
  [uploadSpec, uploadCommand],
  [studioSpec, studioCommand],
  [traceSpec, (args, io) => traceCommand(args, io)],
  [keygenSpec, keygenCommand],
  [codegenSpec, codegenCommand],
  [cloudSpec, cloudCommand],
]);

function toolsVersion(): string {
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(toolsRoot(), 'package.json'), 'utf8'));
  const v = (pkg as { version?: unknown }).version;
  return typeof v === 'string' ? v : 'unknown';
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.err(mainHelp());
    return 2;
  }
  if (first === '--help' || first === '-h') {
    io.out(mainHelp());
    return 0;
  }
  if (first === '--version') {
    io.out(`beacon ${toolsVersion()}\n`);
    return 0;
  }
  if (first === 'help') {
    if (rest.length === 0) {
      io.out(mainHelp());
      return 0;
    }
    const spec = COMMANDS.find((c) => c.name === rest[0]);
    if (!spec || rest.length > 1) {
      io.err(`beacon: unknown command '${rest.join(' ')}' (see 'beacon --help')\n`);
      return 2;
    }
    io.out(commandHelp(spec));
    return 0;
  }
  const spec = COMMANDS.find((c) => c.name === first);
  if (!spec) {
    const what = first.startsWith('-') ? 'option' : 'command';
    io.err(`beacon: unknown ${what} '${first}' (see 'beacon --help')\n`);
    return 2;
  }
  try {
    const args = parseArgs(spec, rest);
    if (args.help) {
      io.out(commandHelp(spec));
      return 0;
    }
    return await (HANDLERS.get(spec) as Handler)(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      const hint = err.helpHint ? ` (see 'beacon ${spec.name} --help')` : '';
      io.err(`beacon ${spec.name}: ${err.message}${hint}\n`);
      return 2;
    }
    throw err;
  }
}
