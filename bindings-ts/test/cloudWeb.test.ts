// The cloud's web page in a real browser (Debian's chromium, headless, driven by
// puppeteer-core): it lists a device and its events and variables, and sends a message that
// the device then receives at its next sync.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import type { Browser, Page } from 'puppeteer-core';
import { DeviceClient, MemoryStorage, ReceivedMessage } from '../src/cloud/deviceClient';
import { Cloud, startCloud } from '../src/cloud/service';
import { deviceId, tmpDir } from '../src/cloud/testkit';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
const skip = CHROMIUM ? false : "chromium is not installed (Debian package 'chromium'; scripts/setup.sh installs it)";

let cloud: Cloud;
let browser: Browser | undefined;
let page: Page;
const profile = tmpDir('beacon-web-test-');

before(async () => {
  if (!CHROMIUM) return;
  cloud = await startCloud({ port: 0, httpPort: 0, log: () => undefined });
  const puppeteer = await import('puppeteer-core');
  const args = ['--headless=new', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  browser = await puppeteer.launch({ executablePath: CHROMIUM, args, headless: true });
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  await cloud?.stop();
});

async function cellTexts(selector: string): Promise<string[]> {
  return page.$$eval(selector, (cells) => cells.map((c) => c.textContent ?? ''));
}

test('web page: devices, events, variables; a message sent from the page reaches the device', { skip }, async () => {
  const id = deviceId();
  const cred = await cloud.issueDevice(id);
  const dev = new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage() });
  for (let i = 1; i <= 3; i++) dev.enqueue('temperature', { celsius: 20 + i }, { volatile: false });
  dev.setVar('mode', 'eco');
  const got: ReceivedMessage[] = [];
  dev.onReceive((m) => got.push(m));
  await dev.sync();

  // Without the token the page shows no data and says what it needs.
  await page.goto(`${cloud.httpUrl}/`, { waitUntil: 'load' });
  await page.waitForFunction(`(document.getElementById('status')?.textContent ?? '').includes('token')`);
  assert.deepEqual(await cellTexts('#devices tbody td'), []);

  // With a wrong token: the API's error is shown.
  await page.type('#token', 'wrong');
  await page.click('#token-form button');
  await page.waitForFunction(`document.getElementById('status')?.className === 'error'`);
  assert.match((await page.$eval('#status', (e) => e.textContent)) ?? '', /wrong token/);

  // The address `beacon cloud` prints carries the token in the fragment.
  await page.goto(`${cloud.httpUrl}/#token=${cloud.token}`, { waitUntil: 'load' });
  await page.waitForSelector(`#devices tbody tr[data-id="${id}"]`);
  assert.ok(!page.url().includes(cloud.token), 'the token is taken out of the address bar');
  const row = await cellTexts(`#devices tbody tr[data-id="${id}"] td`);
  assert.equal(row[0], id);
  assert.equal(row[1], '4'); // 3 events and the variable update

  await page.click(`#devices tbody tr[data-id="${id}"]`);
  await page.waitForFunction(`document.querySelectorAll('#events tbody tr').length === 4`);
  const payloads = await cellTexts('#events tbody td.payload');
  assert.ok(payloads.includes('{"celsius":23}') && payloads.includes('{"celsius":21}'));
  assert.deepEqual(await cellTexts('#variables tbody td:first-child'), ['mode']);

  // Filter by type.
  await page.type('#event-type', 'mode');
  await page.$eval('#event-type', (e) => e.dispatchEvent(new Event('change')));
  await page.waitForFunction(`document.querySelectorAll('#events tbody tr').length === 1`);

  // Send a message from the form.
  await page.type('#message-type', 'blink');
  await page.$eval('#message-payload', (e) => ((e as unknown as { value: string }).value = ''));
  await page.type('#message-payload', '{"times": 3, "color": "red"}');
  await page.click('#message-form button');
  await page.waitForFunction(`(document.getElementById('message-status')?.textContent ?? '').includes('queued')`);
  await page.waitForFunction(`document.querySelector('#messages tbody td:last-child')?.textContent === 'pending'`);
  assert.deepEqual(await cellTexts('#messages tbody td:last-child'), ['pending']);

  // A payload that is not JSON is refused in the page; nothing is sent.
  await page.$eval('#message-payload', (e) => ((e as unknown as { value: string }).value = '{oops'));
  await page.click('#message-form button');
  await page.waitForFunction(`(document.getElementById('message-status')?.textContent ?? '').includes('not valid JSON')`);

  await dev.sync();
  assert.equal(got.length, 1);
  assert.equal(got[0].type, 'blink');
  assert.deepEqual(got[0].payload, { times: 3, color: 'red' });
  assert.equal((await cloud.store.messages(id)).length, 1);

  await page.click('#refresh');
  await page.waitForFunction(`(document.querySelector('#messages tbody td:last-child')?.textContent ?? '').startsWith('delivered')`);
  if (process.env.BEACON_WEB_SCREENSHOT) await page.screenshot({ path: process.env.BEACON_WEB_SCREENSHOT, fullPage: true });
});

test('web page: add a webhook (its secret shown once), see its dead letters and replay them', { skip }, async () => {
  const { freePort, waitFor } = await import('../src/cloud/testkit');
  const id = deviceId();
  const cred = await cloud.issueDevice(id);
  // A receiver that is not there, given up on after the first attempt.
  const port = await freePort();
  const res = await fetch(`${cloud.httpUrl}/api/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, retryFor: 1 }),
  });
  const hook = (await res.json()) as { id: number };
  const dev = new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage() });
  dev.enqueue('door', { open: true }, { volatile: false });
  await dev.sync();
  await waitFor('the dead letter', async () => ((await cloud.store.webhooks.deliveries(hook.id, 'dead', 10)).length > 0 ? true : undefined), 400, 50);

  await page.goto(`${cloud.httpUrl}/#token=${cloud.token}`, { waitUntil: 'load' });
  await page.waitForSelector(`#webhooks tbody tr[data-id="${hook.id}"]`);
  const cells = await cellTexts(`#webhooks tbody tr[data-id="${hook.id}"] td`);
  assert.deepEqual(cells.slice(0, 6), [String(hook.id), `http://127.0.0.1:${port}/hook`, 'all', 'all', '0', '1']);
  await page.click(`#webhooks tbody tr[data-id="${hook.id}"] button`);
  await page.waitForFunction(`document.querySelectorAll('#dead tbody tr').length === 1`);
  const dead = await cellTexts('#dead tbody td');
  assert.equal(dead[0], id);
  assert.match(dead[4], /^connection refused/);
  await page.click('#replay');
  await page.waitForFunction(`(document.getElementById('webhook-status')?.textContent ?? '').includes('sent again')`);

  // Adding one from the form shows its secret, once; the list never does.
  await page.type('#webhook-url', 'https://hooks.example.com/beacon');
  await page.type('#webhook-types', 'door, temp');
  await page.click('#webhook-form button');
  await page.waitForFunction(`(document.getElementById('webhook-status')?.textContent ?? '').includes('whsec_')`);
  const shown = (await page.$eval('#webhook-status', (e) => e.textContent)) ?? '';
  const secret = /whsec_[0-9a-f]{64}/.exec(shown)?.[0] ?? '';
  assert.ok(secret !== '');
  await page.waitForFunction(`document.querySelectorAll('#webhooks tbody tr').length === 2`);
  assert.ok(!(await page.content()).replace(shown, '').includes(secret), 'the secret appears only in the message');
  assert.deepEqual((await cellTexts('#webhooks tbody tr:last-child td')).slice(1, 3), ['https://hooks.example.com/beacon', 'door, temp']);
});

test('web page: a cloud-code rule shows as such, and its Log button shows what each call printed', { skip }, async () => {
  const { waitFor } = await import('../src/cloud/testkit');
  const id = deviceId();
  const cred = await cloud.issueDevice(id);
  const res = await fetch(`${cloud.httpUrl}/api/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cloud.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: "module.exports = async (e) => console.log('window', e.payload.open ? 'opened' : 'closed');", types: ['window'] }),
  });
  const rule = (await res.json()) as { id: number };
  const dev = new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage() });
  dev.enqueue('window', { open: true }, { volatile: false });
  await dev.sync();
  await waitFor('the log line', async () => ((await cloud.store.webhooks.codeLogs(rule.id, 10)).length > 0 ? true : undefined), 400, 50);

  await page.goto(`${cloud.httpUrl}/#token=${cloud.token}`, { waitUntil: 'load' });
  await page.waitForSelector(`#webhooks tbody tr[data-id="${rule.id}"] button.log`);
  assert.equal((await cellTexts(`#webhooks tbody tr[data-id="${rule.id}"] td`))[1], 'cloud code (code:api)');
  await page.click(`#webhooks tbody tr[data-id="${rule.id}"] button.log`);
  await page.waitForFunction(`document.querySelectorAll('#code-log tbody tr').length === 1`);
  const cells = await cellTexts('#code-log tbody td');
  assert.deepEqual([cells[0], cells[2], cells[4], cells[5]], [id, '1', 'ok', 'window opened']);
});
