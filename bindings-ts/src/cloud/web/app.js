// The cloud's web page: plain script, no libraries, nothing loaded from elsewhere. It reads the
// API with the bearer token the user gives (or the #token=... of the address `beacon cloud`
// prints; a fragment never reaches the server) and keeps it in this browser's localStorage.
'use strict';

const state = { token: '', device: null, before: null, webhook: null };
const $ = (id) => document.getElementById(id);

function status(text, isError) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

async function api(path, init) {
  const res = await fetch(path, {
    ...init,
    headers: { authorization: 'Bearer ' + state.token, ...(init && init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function time(ms) {
  return ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

function row(cells, cls) {
  const tr = document.createElement('tr');
  cells.forEach((c, i) => {
    const td = document.createElement('td');
    td.textContent = c;
    if (cls && cls[i]) td.className = cls[i];
    tr.appendChild(td);
  });
  return tr;
}

async function loadDevices() {
  try {
    const { devices } = await api('/api/devices');
    const body = $('devices').querySelector('tbody');
    body.replaceChildren();
    for (const d of devices) {
      const tr = row([d.id, String(d.events), String(d.pendingMessages), time(d.lastSeen), d.revoked ? 'revoked' : 'active']);
      tr.dataset.id = d.id;
      if (d.id === state.device) tr.className = 'selected';
      tr.addEventListener('click', () => selectDevice(d.id));
      body.appendChild(tr);
    }
    status(devices.length === 0 ? 'No devices yet.' : `${devices.length} device(s).`);
  } catch (err) {
    status(err.message, true);
  }
}

async function loadEvents(more) {
  const params = new URLSearchParams({ limit: '50' });
  const type = $('event-type').value.trim();
  if (type) params.set('type', type);
  if (more && state.before) params.set('before', state.before);
  const page = await api(`/api/devices/${state.device}/events?${params}`);
  const body = $('events').querySelector('tbody');
  if (!more) body.replaceChildren();
  for (const e of page.events) body.appendChild(row([String(e.seq), e.type, time(e.ts), JSON.stringify(e.payload)], [null, null, null, 'payload']));
  state.before = page.next || null;
  $('older').hidden = !page.next;
}

async function loadDetails() {
  const id = state.device;
  await loadEvents(false);
  const { variables } = await api(`/api/devices/${id}/variables`);
  const vbody = $('variables').querySelector('tbody');
  vbody.replaceChildren(...variables.map((v) => row([v.name, JSON.stringify(v.value), time(v.ts)], [null, 'payload', null])));
  const { messages } = await api(`/api/devices/${id}/messages`);
  const mbody = $('messages').querySelector('tbody');
  mbody.replaceChildren(...messages.slice(-50).reverse().map((m) => row([String(m.id), m.type, JSON.stringify(m.payload), m.delivered ? 'delivered ' + time(m.delivered) : 'pending'], [null, null, 'payload', null])));
}

async function selectDevice(id) {
  state.device = id;
  state.before = null;
  $('device-id').textContent = id;
  $('device-section').hidden = false;
  for (const tr of $('devices').querySelectorAll('tbody tr')) tr.className = tr.dataset.id === id ? 'selected' : '';
  try {
    await loadDetails();
  } catch (err) {
    status(err.message, true);
  }
}

// Webhooks: the list with its counts, a form to add one (the secret is shown once, here), and a
// webhook's dead letters with a button that puts them back in its outbox. A cloud-code rule
// (kind 'code') also has its log: what each call printed, or why it failed.
function list(text) {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return items.length > 0 ? items : undefined;
}

async function loadWebhooks() {
  const { webhooks } = await api('/api/webhooks');
  const body = $('webhooks').querySelector('tbody');
  body.replaceChildren();
  for (const w of webhooks) {
    const receiver = w.kind === 'code' ? `cloud code (${w.url})` : w.url;
    const tr = row([String(w.id), receiver, (w.types || ['all']).join(', '), (w.devices || ['all']).join(', '), String(w.pending), String(w.dead)]);
    tr.dataset.id = String(w.id);
    const td = document.createElement('td');
    const show = document.createElement('button');
    show.type = 'button';
    show.textContent = 'Dead letters';
    show.addEventListener('click', () => loadDead(w.id).catch((err) => status(err.message, true)));
    td.appendChild(show);
    if (w.kind === 'code') {
      const log = document.createElement('button');
      log.type = 'button';
      log.className = 'log';
      log.textContent = 'Log';
      log.addEventListener('click', () => loadLog(w.id).catch((err) => status(err.message, true)));
      td.appendChild(log);
    }
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

async function loadDead(id) {
  state.webhook = id;
  $('dead-id').textContent = String(id);
  $('dead-section').hidden = false;
  const { deliveries } = await api(`/api/webhooks/${id}/deliveries?status=dead`);
  $('dead').querySelector('tbody').replaceChildren(...deliveries.map((d) => row([d.deviceId, `${d.stream}:${d.seq}`, time(d.failedAt), String(d.attempts), d.lastError || ''], [null, null, null, null, 'payload'])));
}

async function loadLog(id) {
  $('log-id').textContent = String(id);
  $('log-section').hidden = false;
  const { logs } = await api(`/api/webhooks/${id}/logs?limit=100`);
  $('code-log').querySelector('tbody').replaceChildren(
    ...logs.map((l) => row([l.deviceId, `${l.stream}:${l.seq}`, String(l.attempt), time(l.at), l.ok ? 'ok' : l.error || 'failed', l.output], [null, null, null, null, null, 'payload'])),
  );
}

$('replay').addEventListener('click', async () => {
  try {
    const r = await api(`/api/webhooks/${state.webhook}/replay`, { method: 'POST' });
    $('webhook-status').textContent = `${r.replayed} dead letter(s) of webhook ${r.id} sent again.`;
    $('webhook-status').className = '';
    await loadDead(state.webhook);
    await loadWebhooks();
  } catch (err) {
    status(err.message, true);
  }
});

$('webhook-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const out = $('webhook-status');
  try {
    const body = { url: $('webhook-url').value.trim(), types: list($('webhook-types').value), devices: list($('webhook-devices').value) };
    const w = await api('/api/webhooks', { method: 'POST', body: JSON.stringify(body) });
    out.textContent = `Webhook ${w.id} added. Its signing secret, shown only now: ${w.secret}`;
    out.className = 'secret';
    await loadWebhooks();
  } catch (err) {
    out.textContent = err.message;
    out.className = 'error';
  }
});

$('token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  state.token = $('token').value.trim();
  localStorage.setItem('beacon-cloud-token', state.token);
  loadDevices();
  loadWebhooks().catch(() => undefined);
});

$('refresh').addEventListener('click', () => {
  loadDevices();
  loadWebhooks().catch((err) => status(err.message, true));
  loadDeployments().catch((err) => status(err.message, true));
  if (state.device) selectDevice(state.device);
});

$('event-type').addEventListener('change', () => loadEvents(false).catch((err) => status(err.message, true)));
$('older').addEventListener('click', () => loadEvents(true).catch((err) => status(err.message, true)));

$('message-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const out = $('message-status');
  let payload;
  try {
    payload = JSON.parse($('message-payload').value);
  } catch {
    out.textContent = 'The payload is not valid JSON.';
    out.className = 'error';
    return;
  }
  try {
    const m = await api(`/api/devices/${state.device}/messages`, { method: 'POST', body: JSON.stringify({ type: $('message-type').value, payload }) });
    out.textContent = `Message ${m.id} queued; the device gets it at its next sync.`;
    out.className = '';
    await loadDetails();
  } catch (err) {
    out.textContent = err.message;
    out.className = 'error';
  }
});

// Deployments (`beacon cloud deploy`): each rollout with its counts per state; a click shows its
// devices. Read only: a deployment is made with the CLI or POST /api/deployments.
function rolloutText(d) {
  const stages = d.rollout.stages.length > 1 ? ` stage ${d.stage + 1} of ${d.rollout.stages.length} (${d.rollout.stages.join('%, ')}%)` : '';
  return d.status + stages + (d.stopped ? `: ${d.stopped}` : '');
}

async function loadDeployments() {
  const { deployments } = await api('/api/deployments');
  const body = $('deployments').querySelector('tbody');
  body.replaceChildren();
  for (const d of deployments) {
    const c = d.counts;
    const tr = row([String(d.id), `${d.package.name} (API ${d.package.apiVersion}, ${d.package.size} B${d.package.signed ? ', signed' : ''})`, time(d.created), rolloutText(d), String(c.pending), String(c.downloading), String(c.installed), String(c.refused), String(c['rolled back'])]);
    tr.addEventListener('click', () => showDeployment(d));
    body.appendChild(tr);
  }
}

function showDeployment(d) {
  $('deployment-id').textContent = String(d.id);
  $('deployment-section').hidden = false;
  $('deployment-devices').querySelector('tbody').replaceChildren(
    ...d.devices.map((x) => row([x.deviceId, String(x.stage + 1), x.state, `${x.fetched} of ${d.package.size}`, x.reason || '', time(x.updated)], [null, null, null, null, 'payload', null])),
  );
}

function tokenFromAddress() {
  const m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (!m) return false;
  localStorage.setItem('beacon-cloud-token', decodeURIComponent(m[1]));
  history.replaceState(null, '', location.pathname);
  return true;
}

function start() {
  state.token = localStorage.getItem('beacon-cloud-token') || '';
  $('token').value = state.token;
  if (state.token) {
    loadDevices();
    loadWebhooks().catch(() => undefined);
    loadDeployments().catch(() => undefined);
  } else status('Enter the API token that `beacon cloud` printed.');
}

window.addEventListener('hashchange', () => {
  if (tokenFromAddress()) start();
});
tokenFromAddress();
start();
