// The apps a scenario deploys through the loopback cloud (`cloudDeploy` events): built for the
// run's engine as the devices' apps are, or given as packages, and passed to beacon-sim with
// --deploy in the order the world script's `cloud-deploy K` lines number them.
import * as fs from 'fs';
import * as path from 'path';
import { UsageError } from './args';
import { isSource, printDiagnostics } from './common';
import { CliIo } from './io';

type Compiler = typeof import('../compiler/light');

/**
 * Where a scenario's deployments can run: through the loopback cloud, of the simulator or of a
 * Zephyr firmware on its test board (nrf52_bsim, mps2/an521; one device: world_main_zephyr.c's
 * --deploy, installed in the board's app store). The bare-metal image has no SHA-256 to name a
 * package with.
 */
export function checkDeployTarget(worldFile: string, target: string, cloud: string | undefined, embedded: boolean): void {
  if (target === 'qemu') {
    throw new UsageError(`${worldFile}: cloudDeploy: deployments in a scenario run on the simulator and on the Zephyr firmwares (--target sim, bsim or zephyr-qemu); the bare-metal image on qemu has no SHA-256 to name a package with`, false);
  }
  if (embedded || (cloud !== undefined && cloud !== 'loopback')) {
    throw new UsageError(`${worldFile}: cloudDeploy: the scenario deploys through the loopback cloud (--cloud loopback); with a real cloud deploy with \`beacon cloud deploy\``, false);
  }
}

/** The package of each deployed app, built into workDir when it is a source. */
export async function deployPackages(
  compiler: Compiler,
  apps: { app: string; at: string }[],
  o: { engine: Parameters<Compiler['compileApp']>[0]['engine']; apiVersion: Parameters<Compiler['compileApp']>[0]['apiVersion']; workDir: string; worldFile: string; io: CliIo },
): Promise<string[]> {
  const out: string[] = [];
  for (const [k, { app, at }] of apps.entries()) {
    if (!fs.existsSync(app)) {
      throw new UsageError(`${o.worldFile}: ${at}: ${path.relative(process.cwd(), app)}: no such file`, false);
    }
    // Absolute: a firmware on a test board reads it from its own working directory.
    if (!isSource(app)) {
      out.push(path.resolve(app));
      continue;
    }
    const pkg = path.join(o.workDir, `deploy-${k}-${path.basename(app).replace(/\.[^.]+$/, '')}.bapp`);
    const r = await compiler.compileApp({
      entry: app,
      apiVersion: o.apiVersion,
      engine: o.engine,
      outFile: pkg,
      onNote: (line) => o.io.err(`beacon: ${line}\n`),
    });
    printDiagnostics(o.io, r.warnings, (d) => compiler.formatDiagnostic(d));
    out.push(pkg);
  }
  return out;
}
