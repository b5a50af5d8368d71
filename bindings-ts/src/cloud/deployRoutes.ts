// The HTTP API's deployment routes (the token is checked before these run, in httpRoutes.ts):
//
//   GET  /api/deployments                                     every deployment, with per-state counts and its devices
//   POST /api/deployments {package: <base64 .bapp>, name?, devices: [id...] | all: true,
//                          stages?: [10, 50, 100], minHealthy?: <ms>}   201
//   GET  /api/deployments/<id>                                one deployment
//
// A package of more than about 48 kB does not fit the API's 64 kB body as base64: deploy it with
// `beacon cloud deploy`, which writes to the store directly.
import type * as http from 'http';
import { deploy, DeployTargets, deploymentView, Rollout, SINGLE_STAGE } from './deployments';
import { ApiActions, HttpError, notAllowed, readJson, segment, Send } from './httpRoutes';

function deploymentId(raw: string): number {
  const text = segment(raw);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new HttpError(400, `'${text.slice(0, 80)}' is not a deployment id`);
  return Number(text);
}

async function create(api: ApiActions, req: http.IncomingMessage, send: Send): Promise<void> {
  const body = await readJson(req);
  const usage = 'the body must be {"package": "<base64 of the .bapp>", "name": "app.bapp", "devices": ["<id>", ...]} or {..., "all": true}';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, usage);
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (!['package', 'name', 'devices', 'all', 'stages', 'minHealthy'].includes(k)) throw new HttpError(400, `unknown field '${k.slice(0, 40)}' (package, name, devices, all, stages, minHealthy)`);
  }
  if (typeof b.package !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(b.package)) throw new HttpError(400, `package: ${usage}`);
  if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length < 1 || b.name.length > 200)) throw new HttpError(400, 'name must be text of 1 to 200 characters');
  let targets: DeployTargets;
  if (b.all === true && b.devices === undefined) targets = { all: true };
  else if (b.all === undefined && Array.isArray(b.devices) && b.devices.every((d) => typeof d === 'string')) targets = { devices: b.devices as string[] };
  else throw new HttpError(400, 'give either devices (a list of public ids) or all: true');
  let rollout: Rollout = SINGLE_STAGE;
  if (b.stages !== undefined || b.minHealthy !== undefined) {
    if (!Array.isArray(b.stages) || !b.stages.every((p) => typeof p === 'number')) throw new HttpError(400, 'stages must be a list of percentages, e.g. [10, 50, 100]');
    if (b.minHealthy !== undefined && typeof b.minHealthy !== 'number') throw new HttpError(400, 'minHealthy must be a number of ms');
    rollout = { stages: b.stages as number[], minHealthy: (b.minHealthy as number | undefined) ?? 0 };
  }
  try {
    const d = await deploy(api.store, Buffer.from(b.package, 'base64'), (b.name as string | undefined) ?? 'app.bapp', targets, api.now?.() ?? Date.now(), rollout);
    api.log(`deployment ${d.id}: ${d.package.name} (${d.package.hash.slice(0, 16)}) to ${d.devices.length} devices`);
    return send(201, deploymentView(d));
  } catch (err) {
    if (err instanceof RangeError) throw new HttpError(400, err.message);
    throw err;
  }
}

export async function deploymentRoute(api: ApiActions, req: http.IncomingMessage, url: URL, parts: string[], send: Send): Promise<void> {
  const method = req.method ?? 'GET';
  if (parts.length === 2) {
    if (method === 'GET') return send(200, { deployments: (await api.store.deployments.listDeployments()).map(deploymentView) });
    if (method === 'POST') return create(api, req, send);
    notAllowed(method);
  }
  if (parts.length !== 3) throw new HttpError(404, `no route ${method} ${url.pathname.slice(0, 200)}`);
  if (method !== 'GET') notAllowed(method);
  const id = deploymentId(parts[2]);
  const d = await api.store.deployments.deployment(id);
  if (!d) throw new HttpError(404, `no deployment ${id}`);
  return send(200, deploymentView(d));
}
