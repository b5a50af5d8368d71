// The HTTP API's webhook routes (the token is checked before these run, in httpRoutes.ts):
//
//   GET    /api/webhooks                               every webhook, without its secret
//   POST   /api/webhooks {url, types?, devices?, retryFor?, allowHttp?}   201, with the secret, once
//   POST   /api/webhooks {code, types?, devices?, retryFor?}              201: a cloud-code rule
//   GET    /api/webhooks/<id>                          one webhook
//   DELETE /api/webhooks/<id>                          remove it, its outbox and its dead letters
//   GET    /api/webhooks/<id>/deliveries?status=dead|pending&limit=
//   POST   /api/webhooks/<id>/replay                   dead letters back into the outbox
//   GET    /api/webhooks/<id>/logs?limit=              cloud code: what each call printed, newest first
import type * as http from 'http';
import { ApiActions, HttpError, limitParam, notAllowed, readJson, segment, Send } from './httpRoutes';
import { checkWebhookInput, newWebhookSecret } from './webhooks';

function webhookId(raw: string): number {
  const text = segment(raw);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new HttpError(400, `'${text.slice(0, 80)}' is not a webhook id`);
  return Number(text);
}

async function create(api: ApiActions, req: http.IncomingMessage, send: Send): Promise<void> {
  const body = await readJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the body must be {"url": "https://...", "types": [...], "devices": [...], "retryFor": <ms>}');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (!['url', 'code', 'types', 'devices', 'retryFor', 'allowHttp'].includes(k)) throw new HttpError(400, `unknown field '${k.slice(0, 40)}' (url or code, types, devices, retryFor, allowHttp)`);
  }
  if (b.allowHttp !== undefined && typeof b.allowHttp !== 'boolean') throw new HttpError(400, 'allowHttp must be true or false');
  let w;
  try {
    w = checkWebhookInput({ url: b.url, code: b.code, types: b.types, devices: b.devices, retryFor: b.retryFor, allowHttp: b.allowHttp === true });
  } catch (err) {
    if (err instanceof RangeError) throw new HttpError(400, err.message);
    throw err;
  }
  const created = (api.now?.() ?? Date.now());
  if (w.code !== undefined) {
    const id = await api.store.webhooks.addWebhook({ ...w, secret: '', created });
    api.log(`cloud code ${id} added (${Buffer.byteLength(w.code)} bytes)`);
    return send(201, { id, url: w.url, kind: 'code', types: w.types, devices: w.devices, retryFor: w.retryFor, created });
  }
  const secret = newWebhookSecret();
  const id = await api.store.webhooks.addWebhook({ ...w, secret, created });
  api.log(`webhook ${id} added: ${w.url}`);
  // The secret is in this answer only: listings never show it.
  return send(201, { id, ...w, created, secret });
}

export async function webhookRoute(api: ApiActions, req: http.IncomingMessage, url: URL, parts: string[], send: Send): Promise<void> {
  const method = req.method ?? 'GET';
  const hooks = api.store.webhooks;
  if (parts.length === 2) {
    if (method === 'GET') return send(200, { webhooks: await hooks.listWebhooks() });
    if (method === 'POST') return create(api, req, send);
    notAllowed(method);
  }
  if (parts.length < 3 || parts.length > 4) throw new HttpError(404, `no route ${method} ${url.pathname.slice(0, 200)}`);
  const id = webhookId(parts[2]);
  if (parts.length === 3) {
    if (method === 'DELETE') {
      if (!(await hooks.removeWebhook(id))) throw new HttpError(404, `no webhook ${id}`);
      api.log(`webhook ${id} removed`);
      return send(200, { id, removed: true });
    }
    if (method !== 'GET') notAllowed(method);
    const w = await hooks.webhook(id);
    if (!w) throw new HttpError(404, `no webhook ${id}`);
    return send(200, w);
  }
  if (!(await hooks.webhook(id))) throw new HttpError(404, `no webhook ${id}`);
  if (parts[3] === 'deliveries') {
    if (method !== 'GET') notAllowed(method);
    const status = url.searchParams.get('status') ?? 'dead';
    if (status !== 'dead' && status !== 'pending') throw new HttpError(400, `status must be dead or pending, not '${status.slice(0, 40)}'`);
    const limit = limitParam(url.searchParams.get('limit')) ?? 100;
    if (limit < 1 || limit > 1000) throw new HttpError(400, 'limit must be a whole number from 1 to 1000, in decimal digits');
    return send(200, { deliveries: await hooks.deliveries(id, status, limit) });
  }
  if (parts[3] === 'logs') {
    if (method !== 'GET') notAllowed(method);
    const limit = limitParam(url.searchParams.get('limit')) ?? 100;
    if (limit < 1 || limit > 1000) throw new HttpError(400, 'limit must be a whole number from 1 to 1000, in decimal digits');
    return send(200, { logs: await hooks.codeLogs(id, limit) });
  }
  if (parts[3] === 'replay') {
    if (method !== 'POST') notAllowed(method);
    const replayed = await hooks.replay(id, (api.now?.() ?? Date.now()));
    api.log(`webhook ${id}: ${replayed} dead letters replayed`);
    api.kickWebhooks?.();
    return send(200, { id, replayed });
  }
  throw new HttpError(404, `no route ${method} ${url.pathname.slice(0, 200)}`);
}
