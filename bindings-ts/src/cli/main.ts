// The `beacon` command line. Exit status: 0 success, 1 failure (build errors, a failed run),
// 2 bad usage.
import * as fs from 'fs';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';
import { commandHelp, CommandSpec, parseArgs, ParsedArgs, UsageError } from './args';
import { CliIo, processIo } from './io';
import { buildSpec, cloudSpec, codegenSpec, COMMANDS, keygenSpec, mainHelp, runSpec, simSpec, studioSpec, testSpec, traceSpec, uploadSpec } from './specs';

type Handler = (args: ParsedArgs, io: CliIo) => Promise<number>;

// Each command's module is loaded when the command runs: a run of a prebuilt package loads
// neither the compiler nor the cloud, the studio or the uploader.
const HANDLERS: ReadonlyMap<CommandSpec, () => Promise<Handler>> = new Map<CommandSpec, () => Promise<Handler>>([
  [buildSpec, async () => (await import('./build')).buildCommand],
  [runSpec, async () => (await import('./run')).runCommand],
  [simSpec, async () => (await import('./sim')).simCommand],
  [testSpec, async () => (await import('./test')).testCommand],
  [uploadSpec, async () => (await import('./upload')).uploadCommand],
  [studioSpec, async () => (await import('./studio')).studioCommand],
  [traceSpec, async () => (await import('./trace')).traceCommand],
  [keygenSpec, async () => (await import('./keygen')).keygenCommand],
  [codegenSpec, async () => (await import('./codegen')).codegenCommand],
  [cloudSpec, async () => (await import('./cloud')).cloudCommand],
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
    const handler = await HANDLERS.get(spec)!();
    return await handler(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      const hint = err.helpHint ? ` (see 'beacon ${spec.name} --help')` : '';
      io.err(`beacon ${spec.name}: ${err.message}${hint}\n`);
      return 2;
    }
    throw err;
  }
}
