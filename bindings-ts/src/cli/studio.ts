// `beacon studio [app.ts] [--port N] [--world scenario.json] [--api V]`: the local web page to
// write, build and run micro-apps (bindings-ts/src/studio/server.ts). Runs until interrupted.
import { ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, existingFile, isSource, reportFailure } from './common';
import { CliIo } from './io';

export async function studioCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const app = args.positionals[0] === undefined ? undefined : existingFile(args.positionals[0]);
  if (app !== undefined && !isSource(app)) throw new UsageError(`${args.positionals[0]}: expected a .ts or .js source file`);
  const worldArg = stringOption(args, 'world');
  const world = worldArg === undefined ? undefined : existingFile(worldArg);
  const portArg = stringOption(args, 'port');
  const port = portArg === undefined ? 8070 : Number(portArg);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: '${portArg}' is not a port number`);
  const api = apiOption(args);
  const { startStudio } = await import('../studio/server');
  let studio;
  try {
    studio = await startStudio({ port, api, ...(app ? { app } : {}), ...(world ? { world } : {}), onNote: (l) => io.err(`beacon: ${l}\n`) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      io.err(`beacon studio: port ${port} is in use (choose another with --port)\n`);
      return 1;
    }
    if (err instanceof Error && /WebAssembly simulator did not build/.test(err.message)) {
      io.err(`beacon studio: ${err.message}\n`);
      return 1;
    }
    return reportFailure(io, 'studio', err);
  }
  io.out(`beacon studio: ${studio.url} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void studio.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
