// `beacon cloud`: run the cloud service (with cloud code: --code FILE), issue and revoke device
// credentials, manage webhooks and cloud-code rules (cloudWebhook.ts), deploy apps to devices
// (cloudDeploy.ts), write the files an external Mosquitto needs, remove old events.
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
    const port = portOption(args, 'port', cert ? 8883 : 1883);
    const servicePort = portOption(args, 'service-port', port + 1);
    let files;
    try {
      files = await writeMosquittoConfig(store, dir, { port, host: stringOption(args, 'host'), tls: cert && key ? { cert, key } : undefined, servicePort, serviceHost: stringOption(args, 'service-host') });
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--service-port/--service-host: ${err.message}`, false);
      throw err;
    }
    io.out(`${files.confFile}\n${files.passwordFile}\n${files.aclFile}\n`);
    io.err(
      `Start the broker with 'mosquitto -c ${files.confFile}' (or include it); devices connect to port ${port}. ` +
        `Then start one or more cloud workers with 'beacon cloud --broker ${files.serviceUrl} --db <the same store> --mosquitto-dir ${dir}'. Send the broker SIGHUP after adding or revoking devices.\n`,
    );
    return 0;
  });
}

/** --mosquitto-pid: a process id, or the path of a pid file (read at each reload). */
function mosquittoPidOption(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^[0-9]+$/.test(text) ? Number(text) : text;
}

/** --share-group / --no-share: a group name MQTT allows (no '/', '+' or '#'), or false. */
function shareOption(args: ParsedArgs): string | false | undefined {
  const group = stringOption(args, 'share-group');
  const alone = flagOption(args, 'no-share');
  if ((group !== undefined || alone) && stringOption(args, 'broker') === undefined) throw new UsageError(`--${alone ? 'no-share' : 'share-group'} goes with --broker (the embedded broker serves one process)`);
  if (group !== undefined && alone) throw new UsageError('--share-group and --no-share exclude each other');
  if (group !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(group)) throw new UsageError(`--share-group must be 1 to 64 letters, digits, '_', '.' or '-', not '${group.slice(0, 80)}'`);
  return alone ? false : group;
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
    share: shareOption(args),
    tls: cert && key ? { cert, key } : undefined,
    token: stringOption(args, 'token') ?? process.env.BEACON_CLOUD_TOKEN,
    webhooks: await webhookOptions(args),
    code: await codeOption(args),
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

/**
 * --older-than: a duration with its unit. A bare number would be milliseconds (as for the other
 * interval options), and '--older-than 90' pruning all but the last 90 ms is surely a slip.
 */
async function olderThanOption(args: ParsedArgs): Promise<number> {
  const text = stringOption(args, 'older-than');
  if (text === undefined) throw new UsageError('prune needs --older-than <duration>, e.g. --older-than 90d');
  if (!/[a-z]$/.test(text)) throw new UsageError(`--older-than needs a unit (m, h, d, w, ...), e.g. 90d, not '${text}'`);
  const { parseInterval } = await import('./interval');
  try {
    return parseInterval(text);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--older-than: ${err.message}`);
    throw err;
  }
}

async function pruneCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const extra = args.positionals[1];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const ms = await olderThanOption(args);
  // A duration longer than since 1970 leaves nothing to prune.
  const olderThan = Math.max(0, Date.now() - ms);
  return withStore(args, async (store) => {
    const r = await store.prune(olderThan);
    if (flagOption(args, 'json')) io.out(JSON.stringify({ olderThan, ...r }) + '\n');
    else {
      io.out(`${r.partitions.length} partitions dropped${r.partitions.length > 0 ? `: ${r.partitions.join(', ')}` : ''}\n`);
      io.out(`${r.events} events removed (device time before ${new Date(olderThan).toISOString()})\n`);
    }
    return 0;
  });
}

/** --code FILE: the cloud-code handler's source, checked (it must compile) before the cloud starts. */
export async function codeOption(args: ParsedArgs, name = 'code'): Promise<string | undefined> {
  const file = stringOption(args, name);
  if (file === undefined) return undefined;
  const fs = await import('fs');
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--${name}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, false);
  }
  const { checkCode } = await import('../cloud/codeSandbox');
  try {
    return checkCode(source, `--${name} ${file}`);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, false);
    throw err;
  }
}

/** --webhook-timeout, --webhook-retry-base, --code-timeout, --code-memory: the dispatcher of this process. */
async function webhookOptions(args: ParsedArgs): Promise<import('../cloud/webhookDispatch').WebhookOptions> {
  const { parseInterval } = await import('./interval');
  const out: import('../cloud/webhookDispatch').WebhookOptions = {};
  for (const [name, key] of [['webhook-timeout', 'timeoutMs'], ['webhook-retry-base', 'retryBaseMs'], ['code-timeout', 'codeTimeoutMs']] as const) {
    const text = stringOption(args, name);
    if (text === undefined) continue;
    try {
      out[key] = parseInterval(text);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--${name}: ${err.message}`);
      throw err;
    }
  }
  const c = stringOption(args, 'webhook-concurrency');
  if (c !== undefined) {
    if (!/^[1-9][0-9]{0,3}$/.test(c)) throw new UsageError(`--webhook-concurrency must be a number from 1 to 9999, not '${c}'`);
    out.concurrency = Number(c);
  }
  const mb = stringOption(args, 'code-memory');
  if (mb !== undefined) {
    if (!/^[1-9][0-9]{0,4}$/.test(mb) || Number(mb) < 16) throw new UsageError(`--code-memory must be a number of megabytes from 16 to 99999, not '${mb}'`);
    out.codeMemoryMb = Number(mb);
  }
  return out;
}

export async function cloudCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) return serve(args, io);
  if (sub === 'device') return deviceCommand(args, io);
  if (sub === 'webhook') {
    const { webhookCommand } = await import('./cloudWebhook');
    return webhookCommand(args, io, (fn) => withStore(args, fn));
  }
  if (sub === 'deploy') {
    const { deployCommand } = await import('./cloudDeploy');
    return deployCommand(args, io, (fn) => withStore(args, fn));
  }
  if (sub === 'mosquitto-config') return mosquittoCommand(args, io);
  if (sub === 'prune') return pruneCommand(args, io);
  if (sub === 'load') return (await import('./cloudLoad')).loadCommand(args, io);
  throw new UsageError(`unknown cloud command '${sub}' (device, webhook, deploy, mosquitto-config, prune, load, or none to run the cloud)`);
}
