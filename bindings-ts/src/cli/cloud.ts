// `beacon cloud`: run the cloud service, issue and revoke device credentials, write the files
// an external Mosquitto needs.
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { CliIo } from './io';

function portOption(args: ParsedArgs, name: string, fallback: number): number {
  const v = stringOption(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new UsageError(`--${name} must be a port number (0 to 65535), not '${v}'`);
  return n;
}

function dbOption(args: ParsedArgs): string {
  return stringOption(args, 'db') ?? 'beacon-cloud.db';
}

async function withStore<T>(args: ParsedArgs, fn: (store: import('../cloud/store').CloudStore) => Promise<T>): Promise<T> {
  const { openStore } = await import('../cloud/store');
  const store = await openStore(dbOption(args));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function deviceCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const [, action, idText] = args.positionals;
  const json = flagOption(args, 'json');
  if (action === 'list') {
    if (idText !== undefined) throw new UsageError(`unexpected argument '${idText}'`);
    return withStore(args, async (store) => {
      const devices = await store.listDevices();
      if (json) io.out(JSON.stringify(devices) + '\n');
      else for (const d of devices) io.out(`${d.id}  ${d.revoked ? 'revoked' : 'active'}  ${d.events} events  ${d.pendingMessages} pending messages\n`);
      return 0;
    });
  }
  if (action !== 'add' && action !== 'revoke') throw new UsageError(`unknown device action '${action ?? ''}' (add, revoke or list)`);
  if (idText === undefined) throw new UsageError(`device ${action} needs the device's public id`);
  const { normalizeDeviceId, ProtocolError } = await import('../cloud/protocol');
  let id: string;
  try {
    id = normalizeDeviceId(idText);
  } catch (err) {
    if (err instanceof ProtocolError) throw new UsageError(err.message, false);
    throw err;
  }
  return withStore(args, async (store) => {
    if (action === 'revoke') {
      if (!(await store.revokeCredential(id))) {
        io.err(`beacon cloud: no device ${id}\n`);
        return 1;
      }
      io.out(`credentials of ${id} revoked\n`);
      return 0;
    }
    const { issueCredentials } = await import('../cloud/service');
    const c = await issueCredentials(store, id);
    if (json) io.out(JSON.stringify(c) + '\n');
    else {
      io.out(`device:    ${c.id}\nclient id: ${c.clientId}\nusername:  ${c.username}\npassword:  ${c.password}\n`);
      io.err('The password is shown only this once; the cloud keeps only its hash.\n');
    }
    return 0;
  });
}

async function mosquittoCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const [, dir, extra] = args.positionals;
  if (dir === undefined) throw new UsageError('mosquitto-config needs the directory to write to');
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const cert = stringOption(args, 'tls-cert');
  const key = stringOption(args, 'tls-key');
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  const { writeMosquittoConfig } = await import('../cloud/mosquitto');
  return withStore(args, async (store) => {
    const files = await writeMosquittoConfig(store, dir, {
      port: portOption(args, 'port', cert ? 8883 : 1883),
      host: stringOption(args, 'host'),
      tls: cert && key ? { cert, key } : undefined,
    });
    io.out(`${files.confFile}\n${files.passwordFile}\n${files.aclFile}\n`);
    io.err(`Start the broker with 'mosquitto -c ${files.confFile}' (or include it), then 'beacon cloud --broker mqtt://<host>:<port>'. Send the broker SIGHUP after adding or revoking devices.\n`);
    return 0;
  });
}

/** --mosquitto-pid: a process id, or the path of a pid file (read at each reload). */
function mosquittoPidOption(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^[0-9]+$/.test(text) ? Number(text) : text;
}

async function serve(args: ParsedArgs, io: CliIo): Promise<number> {
  const cert = stringOption(args, 'tls-cert');
  const key = stringOption(args, 'tls-key');
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  const options = {
    host: stringOption(args, 'host'),
    port: portOption(args, 'port', 1883),
    httpPort: portOption(args, 'http-port', 8080),
    db: dbOption(args),
    broker: stringOption(args, 'broker'),
    mosquittoDir: stringOption(args, 'mosquitto-dir'),
    mosquittoPid: mosquittoPidOption(stringOption(args, 'mosquitto-pid')),
    tls: cert && key ? { cert, key } : undefined,
    token: stringOption(args, 'token') ?? process.env.BEACON_CLOUD_TOKEN,
    log: (line: string) => io.err(`cloud: ${line}\n`),
  };
  const { startCloud } = await import('../cloud/service');
  let cloud;
  try {
    cloud = await startCloud(options);
  } catch (err) {
    io.err(`beacon cloud: ${(err as Error).message}\n`);
    return 1;
  }
  io.out(`mqtt: ${cloud.mqttUrl}\nhttp: ${cloud.httpUrl}\ntoken: ${cloud.token}\npage: ${cloud.httpUrl}/#token=${cloud.token}\n`);
  if (cloud.mqttUrl.startsWith('mqtt://')) {
    // The simulator's devices have fixed public ids (the first is ...0001), so the next steps
    // can be printed exactly.
    const { simDeviceId } = await import('./runCloud');
    const db = options.db === 'beacon-cloud.db' ? '' : ` --db ${options.db}`;
    io.err(
      `Simulated devices sync with this cloud with:\n` +
        `  beacon cloud device add ${simDeviceId(0)}${db}    (the simulator's first device; prints its password)\n` +
        `  beacon run app.ts --cloud ${cloud.mqttUrl} --cloud-secret <password>\n` +
        `(beacon run without --cloud starts a cloud of its own for the run.)\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
  await cloud.stop();
  return 0;
}

export async function cloudCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) return serve(args, io);
  if (sub === 'device') return deviceCommand(args, io);
  if (sub === 'mosquitto-config') return mosquittoCommand(args, io);
  if (sub === 'load') return (await import('./cloudLoad')).loadCommand(args, io);
  throw new UsageError(`unknown cloud command '${sub}' (device, mosquitto-config, load, or none to run the cloud)`);
}
