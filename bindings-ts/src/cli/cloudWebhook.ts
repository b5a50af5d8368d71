// `beacon cloud webhook add|list|remove|dead|replay|logs`: the webhooks and cloud-code rules
// (`add --code FILE`) of a store (--db), changed
// in the store itself. A running cloud reads the webhooks again within a second and sends
// replayed dead letters at its next poll, so nothing has to be restarted.
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { CliIo } from './io';

type Store = import('../cloud/store').CloudStore;

function idArgument(action: string, text: string | undefined): number {
  if (text === undefined) throw new UsageError(`webhook ${action} needs the webhook's id (from 'beacon cloud webhook list')`);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new UsageError(`'${text.slice(0, 80)}' is not a webhook id (a number from 1)`);
  return Number(text);
}

async function retryForOption(args: ParsedArgs): Promise<number | undefined> {
  const text = stringOption(args, 'retry-for');
  if (text === undefined) return undefined;
  if (!/[a-z]$/.test(text)) throw new UsageError(`--retry-for needs a unit (s, m, h, d), e.g. 24h, not '${text}'`);
  const { parseInterval } = await import('./interval');
  try {
    return parseInterval(text);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--retry-for: ${err.message}`);
    throw err;
  }
}

async function add(args: ParsedArgs, io: CliIo, store: Store, url: string | undefined): Promise<number> {
  const { codeOption } = await import('./cloud');
  const code = await codeOption(args);
  if (url === undefined && code === undefined) throw new UsageError('webhook add needs the receiver\'s URL (https://...), or --code FILE for cloud code');
  if (url !== undefined && code !== undefined) throw new UsageError(`webhook add: a receiver URL or --code, not both (got ${url.slice(0, 80)} and --code)`);
  const { checkWebhookInput, newWebhookSecret } = await import('../cloud/webhooks');
  let w;
  try {
    w = checkWebhookInput({ url, code, types: stringOption(args, 'type'), devices: stringOption(args, 'device'), retryFor: await retryForOption(args), allowHttp: flagOption(args, 'allow-http') });
  } catch (err) {
    // The checks name the field of the API; on the command line it is an option.
    if (err instanceof RangeError) throw new UsageError(err.message.replace(/^types:/, '--type:').replace(/^devices:/, '--device:').replace(/^retryFor:/, '--retry-for:'), false);
    throw err;
  }
  const created = Date.now();
  if (code !== undefined) {
    const id = await store.webhooks.addWebhook({ ...w, secret: '', created });
    if (flagOption(args, 'json')) io.out(JSON.stringify({ id, url: w.url, kind: 'code', types: w.types, devices: w.devices, retryFor: w.retryFor, created }) + '\n');
    else io.out(`cloud code: ${id}\ntypes:   ${w.types?.join(',') ?? 'all'}\ndevices: ${w.devices?.join(',') ?? 'all'}\n`);
    return 0;
  }
  const secret = newWebhookSecret();
  const id = await store.webhooks.addWebhook({ ...w, secret, created });
  if (flagOption(args, 'json')) io.out(JSON.stringify({ id, ...w, created, secret }) + '\n');
  else {
    io.out(`webhook: ${id}\nurl:     ${w.url}\ntypes:   ${w.types?.join(',') ?? 'all'}\ndevices: ${w.devices?.join(',') ?? 'all'}\nsecret:  ${secret}\n`);
    io.err('The secret is shown only this once: the receiver checks the Beacon-Signature header with it (docs/cloud.md, Webhooks).\n');
  }
  return 0;
}

function hours(ms: number): string {
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export async function webhookCommand(args: ParsedArgs, io: CliIo, withStore: <T>(fn: (store: Store) => Promise<T>) => Promise<T>): Promise<number> {
  const [, action, arg] = args.positionals;
  const json = flagOption(args, 'json');
  if (action === 'add') return withStore((store) => add(args, io, store, arg));
  if (action === 'list') {
    if (arg !== undefined) throw new UsageError(`unexpected argument '${arg}'`);
    return withStore(async (store) => {
      const hooks = await store.webhooks.listWebhooks();
      if (json) io.out(JSON.stringify(hooks) + '\n');
      else {
        for (const h of hooks) {
          io.out(`${h.id}  ${h.url}  types: ${h.types?.join(',') ?? 'all'}  devices: ${h.devices?.join(',') ?? 'all'}  retry for ${hours(h.retryFor)}  ${h.pending} pending  ${h.dead} dead\n`);
        }
      }
      return 0;
    });
  }
  if (action !== 'remove' && action !== 'dead' && action !== 'replay' && action !== 'logs') throw new UsageError(`unknown webhook action '${action ?? ''}' (add, list, remove, dead, replay or logs)`);
  const id = idArgument(action, arg);
  return withStore(async (store) => {
    if (!(await store.webhooks.webhook(id))) {
      io.err(`beacon cloud: no webhook ${id}\n`);
      return 1;
    }
    if (action === 'remove') {
      await store.webhooks.removeWebhook(id);
      io.out(`webhook ${id} removed, with its pending deliveries and dead letters\n`);
    } else if (action === 'replay') {
      const n = await store.webhooks.replay(id, Date.now());
      if (json) io.out(JSON.stringify({ id, replayed: n }) + '\n');
      else io.out(`${n} dead letters of webhook ${id} back in its outbox\n`);
    } else if (action === 'logs') {
      // Oldest first, as a log reads.
      const logs = (await store.webhooks.codeLogs(id, 1000)).reverse();
      if (json) io.out(JSON.stringify(logs) + '\n');
      else {
        for (const l of logs) {
          const head = `${new Date(l.at).toISOString()}  ${l.deviceId}:${l.stream}:${l.seq}  attempt ${l.attempt}  ${l.ok ? 'ok' : `failed: ${l.error ?? ''}`}`;
          io.out(`${head}\n${l.output.split('\n').filter((x) => x !== '').map((x) => `  ${x}\n`).join('')}`);
        }
      }
    } else {
      const dead = await store.webhooks.deliveries(id, 'dead', 1000);
      if (json) io.out(JSON.stringify(dead) + '\n');
      else for (const d of dead) io.out(`${d.deviceId}:${d.stream}:${d.seq}  ${new Date(d.failedAt ?? 0).toISOString()}  ${d.attempts} attempts  ${d.lastError ?? ''}\n`);
    }
    return 0;
  });
}
