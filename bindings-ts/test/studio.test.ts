// `beacon studio` in a real browser: Debian's chromium, headless, driven by puppeteer-core.
// The page is served by startStudio (the server of the command) and runs the WebAssembly build
// of the simulator; what it shows is compared with what `beacon run` prints for the same app.
//
// Skips, saying why, only when chromium or emscripten is missing (scripts/setup.sh installs
// both, so CI runs it).
/// <reference lib="dom" />
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { repoRoot } from '../src/compiler/hostTools';
import { CHROMIUM, openStudioPage } from './studioPage';
import { runChild } from './childProcess';

/** `beacon <args>` in cwd, asynchronously (see runChild); its stdout, or an error with its stderr. */
async function beaconOut(args: string[], cwd: string): Promise<string> {
  const r = await runChild(process.execPath, [BEACON, ...args], 300_000, cwd);
  if (r.status !== 0) throw new Error(`beacon ${args.join(' ')} exited with ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

const HAS_EMCC = spawnSync('sh', ['-c', 'command -v emcc'], { encoding: 'utf8' }).status === 0;
const skip = !CHROMIUM
  ? 'chromium is not installed (bash scripts/setup.sh installs it)'
  : !HAS_EMCC
    ? 'emscripten is not installed (bash scripts/setup.sh installs it)'
    : false;

const ROOT = repoRoot();
const BEACON = path.join(ROOT, 'bindings-ts', 'bin', 'beacon.js');
const ARTIFACTS = path.join(ROOT, 'build', 'test-artifacts');

/** What a user does with the button-led example on an ai-beacon and an lte-beacon. */
const SCENARIO = {
  utc: '2026-01-01T00:00:00Z',
  duration: '12s',
  devices: [
    { name: 'desk', profile: 'ai-beacon' },
    { name: 'shelf', profile: 'lte-beacon' },
  ],
  events: [
    { at: '1s', device: 'desk', press: { hold: '200ms' } },
    { at: '2s', device: 'shelf', press: { hold: '300ms' } },
    { at: '3s', device: 'desk', press: { hold: '3.5s' } },
    { at: '8s', device: 'desk', press: { button: 'side', hold: '100ms' } },
    { at: '9s', device: 'shelf', battery: 20 },
  ],
};

describe('beacon studio in chromium', { skip }, () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  let leaks: string[] = [];
  let pageErrors: string[] = [];
  let close: () => Promise<void> = async () => undefined;

  before(async () => {
    ({ browser, page, dir, leaks, pageErrors, close } = await openStudioPage('studio-test-'));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(() => close());

  const consoleText = (): Promise<string> => page.$eval('#console', (e) => e.textContent ?? '');
  const waitConsole = (text: string): Promise<unknown> =>
    page.waitForFunction((t: string) => (document.getElementById('console')?.textContent ?? '').includes(t), { timeout: 30_000 }, text);

  async function openExample(name: string): Promise<void> {
    await page.select('#examples', name);
    const want = fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8');
    await page.waitForFunction((w: string) => (window as unknown as { studio: { source(): string } }).studio.source() === w, { timeout: 10_000 }, want);
  }

  test('button-led: Run, click the drawn button, the drawn LED takes the colour the app sets', async () => {
    await openExample('button-led.ts');
    await page.select('#speed', '1');
    await page.click('#run');
    await waitConsole('ready: 3 LEDs');
    // The first short press turns the ring on in PALETTE[1], io.Color.GREEN.
    await page.click('#button-main-0');
    await waitConsole('short press 1: steady, colour 1');
    await page.waitForFunction(() => document.getElementById('led-0-0')?.dataset.on === 'true', { timeout: 10_000 });
    const leds = await page.$$eval('#ring-0 .led', (els) => els.map((e) => [(e as HTMLElement).dataset.rgb, getComputedStyle(e).backgroundColor]));
    assert.deepEqual(leds, [
      ['0,255,0', 'rgb(0, 255, 0)'],
      ['0,255,0', 'rgb(0, 255, 0)'],
      ['0,255,0', 'rgb(0, 255, 0)'],
    ]);
    // And what is drawn is what the screen shows: a pixel at the LED's centre.
    const box = (await (await page.$('#led-0-0'))!.boundingBox())!;
    const shot = path.join(ARTIFACTS, 'studio-button-led.png');
    await page.screenshot({ path: shot });
    const pixel = await page.evaluate(
      async (x: number, y: number, data: string) => {
        const img = new Image();
        img.src = data;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
      },
      Math.round(box.x + box.width / 2),
      Math.round(box.y + box.height / 2),
      `data:image/png;base64,${fs.readFileSync(shot).toString('base64')}`,
    );
    assert.deepEqual(pixel, [0, 255, 0]);
    assert.ok(fs.statSync(shot).size > 0);
    await page.click('#stop');
  });

  test("the page's output and trace equal beacon run's, byte for byte", async () => {
    const app = path.join(dir, 'button-led.ts');
    fs.copyFileSync(path.join(ROOT, 'examples', 'button-led.ts'), app);
    const world = path.join(dir, 'desk.json');
    fs.writeFileSync(world, JSON.stringify(SCENARIO));
    const trace = path.join(dir, 'cli.jsonl');
    const stdout = await beaconOut(['run', app, '--world', world, '--cloud', 'loopback', '--trace', trace], dir);

    await openExample('button-led.ts');
    await page.evaluate((text: string) => (window as unknown as { studio: { openFile(n: string, t: string): Promise<void> } }).studio.openFile('desk.json', text), JSON.stringify(SCENARIO));
    await page.waitForFunction(() => document.getElementById('scenario-name')?.textContent?.startsWith('desk.json'));
    await page.select('#speed', 'max');
    await page.click('#run');
    await page.waitForFunction(() => (window as unknown as { studio: { state: { ended?: string } } }).studio.state.ended !== undefined, { timeout: 60_000 });
    const got = await page.evaluate(() => {
      const s = (window as unknown as { studio: { state: { stdout: string; trace: string; ended: string } } }).studio.state;
      return { stdout: s.stdout, trace: s.trace, ended: s.ended };
    });
    assert.equal(got.ended, 'the time given ran out');
    assert.ok(stdout.includes('[desk] short press 1'), stdout);
    assert.equal(got.stdout, stdout);
    assert.equal(got.trace, fs.readFileSync(trace, 'utf8'));
    // Both devices are drawn side by side, with the ring of their profile.
    assert.equal(await page.$$eval('#ring-0 .led', (e) => e.length), 12);
    assert.equal(await page.$$eval('#ring-1 .led', (e) => e.length), 3);
    await page.click('#clear-scenario');
  });

  type StudioWindow = { studio: { state: { stdout: string; trace: string; ended?: string; running: boolean }; setSource(t: string, n: string): void; openFile(n: string, t: string): Promise<void> } };

  /** Run an app in a scenario with `beacon run` and in the page (as fast as possible). */
  async function runBoth(name: string, source: string, scenario: object, on: Page = page): Promise<{ cli: { stdout: string; trace: string }; page: { stdout: string; trace: string } }> {
    const app = path.join(dir, name);
    fs.writeFileSync(app, source);
    const world = path.join(dir, `${name}.json`);
    fs.writeFileSync(world, JSON.stringify(scenario));
    const trace = path.join(dir, `${name}.jsonl`);
    const stdout = await beaconOut(['run', app, '--world', world, '--cloud', 'loopback', '--trace', trace], dir);
    await on.evaluate((s: string, n: string) => (window as unknown as StudioWindow).studio.setSource(s, n), source, name);
    await on.evaluate((text: string, n: string) => (window as unknown as StudioWindow).studio.openFile(n, text), JSON.stringify(scenario), `${name}.json`);
    await on.select('#speed', 'max');
    await on.click('#run');
    await on.waitForFunction(() => (window as unknown as StudioWindow).studio.state.ended !== undefined && !(window as unknown as StudioWindow).studio.state.running, { timeout: 60_000 });
    const got = await on.evaluate(() => ({ stdout: (window as unknown as StudioWindow).studio.state.stdout, trace: (window as unknown as StudioWindow).studio.state.trace }));
    return { cli: { stdout, trace: fs.readFileSync(trace, 'utf8') }, page: got };
  }

  const records = (trace: string): { ev: string; [k: string]: unknown }[] =>
    trace
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { ev: string });

  test('the air panel lists a scripted iBeacon and the app\'s own Eddystone-URL, decoded, and who heard them', async () => {
    const source = "ble.advertise(ble.build.eddystoneUrl('https://example.com/x', -20)).interval(500);\nble.startScan((r) => print(`heard ${r.rssi}`), '3s').then(() => print('scan done'));\n";
    const scenario = {
      utc: '2026-01-01T00:00:00Z',
      duration: '4s',
      origin: { lat: 52, long: 4 },
      seed: 3,
      beacons: [{ name: 'door', position: { x: 2, y: 0 }, interval: '1s', packet: { iBeacon: { uuid: 'f7826da64fa24e988024bc5b71e0893e', major: 7, minor: 42, measuredPower: -59 } } }],
      devices: [
        { name: 'tag', profile: 'ble-beacon', position: { x: 0, y: 0 } },
        { name: 'phone', profile: 'lte-beacon', position: { x: 3, y: 4 } },
      ],
    };
    const r = await runBoth('air.ts', source, scenario);
    assert.equal(r.page.stdout, r.cli.stdout);
    assert.equal(r.page.trace, r.cli.trace);
    const adv = records(r.cli.trace).filter((x) => x.ev === 'ble-adv');
    const rows = await page.$$eval('#air tr.advertiser', (els) =>
      els.map((e) => ({
        key: (e as HTMLElement).dataset.key,
        type: (e as HTMLElement).dataset.type,
        fields: Object.fromEntries(Array.from(e.querySelectorAll('.field')).map((f) => [(f as HTMLElement).dataset.field, f.querySelector('.value')?.textContent])),
        text: e.textContent,
      })),
    );
    const door = rows.find((x) => x.key === 'beacon door');
    assert.ok(door, JSON.stringify(rows));
    assert.equal(door.type, 'iBeacon');
    assert.equal(door.fields.uuid, 'f7826da6-4fa2-4e98-8024-bc5b71e0893e');
    assert.equal(door.fields.major, '7');
    assert.equal(door.fields.minor, '42');
    assert.equal(door.fields['tx at 1 m'], '-59 dBm');
    // As many advertisements as the trace holds, and heard by both devices scanning.
    assert.ok(door.text?.includes(`${adv.filter((x) => x.beacon === 'door').length} adv`), door.text ?? '');
    assert.match(door.text ?? '', /tag: -\d+ dBm/);
    assert.match(door.text ?? '', /phone: -\d+ dBm/);
    const tag = rows.find((x) => x.key === 'tag set 0');
    assert.ok(tag, JSON.stringify(rows));
    assert.equal(tag.type, 'eddystoneUrl');
    assert.equal(tag.fields.url, 'https://example.com/x');
    assert.equal(tag.fields['tx at 0 m'], '-20 dBm');
    assert.match(tag.text ?? '', /phone: -\d+ dBm/);
    assert.ok(rows.some((x) => x.key === 'phone set 0'));
  });

  test('the location panel plots the scenario\'s GNSS track and the fixes of the trace, with a scale in metres', async () => {
    const source = 'location.startUpdates((p) => print(`at ${p.lat.toFixed(5)} ${p.long.toFixed(5)}`), { minInterval: 10, timeout: 120 });\n';
    const scenario = {
      utc: '2026-03-01T12:00:00Z',
      duration: '2 min',
      origin: { lat: 60, long: 24 },
      devices: [{ name: 'walker', profile: 'lte-beacon', gnss: { ttff: { cold: '5s' }, satellites: 9, hdop: 1.3, track: [{ at: 0, x: 0, y: 0 }, { at: '60s', x: 0, y: 60 }, { at: '120s', x: 60, y: 60 }] } }],
    };
    const r = await runBoth('walk.ts', source, scenario);
    assert.equal(r.page.stdout, r.cli.stdout);
    assert.equal(r.page.trace, r.cli.trace);
    const fixes = records(r.cli.trace).filter((x) => x.ev === 'gnss-fix');
    assert.ok(fixes.length > 0);
    const plot = await page.$eval('#track-0', (e) => ({ ...(e as HTMLElement).dataset }));
    assert.equal(plot.trackPoints, '3');
    assert.equal(plot.fixes, String(fixes.length));
    assert.equal(plot.points, String(fixes.length));
    // The track spans 60 m each way: a bar of 20 m fits half of it.
    assert.equal(plot.scale, '20 m');
    const status = await page.$eval('#gnss-0', (e) => e.textContent ?? '');
    assert.match(status, new RegExp(`${fixes.length} fix`));
    assert.match(status, /9 sat, hdop 1\.3/);
    // Drawn, not only counted: the track's grey points (4 px squares, partly under the lines
    // and antialiased at their edges) are on the canvas.
    const grey = await page.$eval('#track-0', (c) => {
      const d = (c as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] === 0x88 && d[k + 1] === 0x88 && d[k + 2] === 0x88) n++;
      return n;
    });
    assert.ok(grey >= 3 * 4, `grey pixels: ${grey}`);
  });

  test('the cloud panel lists the events the loopback cloud stored', async () => {
    const source = "let n = 0;\ntimers.repeat('20s', () => {\n  n++;\n  cloud.enqueue('temp', { c: 20 + n }, { volatile: false });\n});\nsync.setSyncPeriod('2 min');\n";
    const scenario = { utc: '2026-01-01T00:00:00Z', duration: '5 min', devices: [{ name: 'sensor', profile: 'lte-beacon' }] };
    const r = await runBoth('cloud.ts', source, scenario);
    assert.equal(r.page.trace, r.cli.trace);
    const stored = records(r.cli.trace).filter((x) => x.ev === 'cloud-event');
    const queued = records(r.cli.trace).filter((x) => x.ev === 'cloud');
    assert.ok(stored.length > 0);
    const rows = await page.$$eval('#cloud-0 tr.cloud-event', (els) => els.map((e) => Array.from(e.querySelectorAll('td')).map((td) => td.textContent)));
    assert.equal(rows.length, Math.min(20, stored.length));
    // Newest first, with its type, stream:seq and payload as the cloud stored them.
    const last = stored[stored.length - 1];
    assert.deepEqual(rows[0], [(Number(last.t) / 1000).toFixed(1), 'temp', `${String(last.stream)}:${String(last.seq)}`, JSON.stringify(last.payload)]);
    const summary = await page.$eval('#cloud-0 .cloud-summary', (e) => e.textContent ?? '');
    assert.match(summary, new RegExp(`^queued ${queued.length} .* stored ${stored.length} `));
  });

  test("a scenario's per-device apps run each on its device, as beacon run runs them; a missing one is named", async () => {
    const fleet = path.join(dir, 'fleet');
    fs.mkdirSync(fleet, { recursive: true });
    fs.writeFileSync(path.join(fleet, 'lamp.ts'), "io.setLedColor(io.Color.RED);\nio.led(true);\nprint('lamp ' + sys.getPublicId().slice(-1));\n");
    fs.writeFileSync(path.join(fleet, 'counter.ts'), "let n = 0;\ntimers.repeat(1000, () => print(`count ${++n}`));\n");
    const scenario = { utc: '2026-01-01T00:00:00Z', duration: '3s', devices: [{ name: 'lamp', app: 'lamp.ts' }, { name: 'counter', app: 'counter.ts', profile: 'ble-beacon' }] };
    const world = path.join(fleet, 'fleet.json');
    fs.writeFileSync(world, JSON.stringify(scenario));
    const trace = path.join(fleet, 'cli.jsonl');
    const stdout = await beaconOut(['run', '--world', world, '--cloud', 'loopback', '--trace', trace], fleet);
    assert.match(stdout, /\[counter\] count 3/);

    // `beacon studio --world fleet/fleet.json`: the apps are found beside the scenario.
    const { startStudio } = await import('../src/studio/server');
    const own = await startStudio({ port: 0, world });
    const p2 = await browser.newPage();
    try {
      await p2.goto(own.url);
      await p2.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
      await p2.select('#speed', 'max');
      await p2.click('#run');
      await p2.waitForFunction(() => (window as unknown as StudioWindow).studio.state.ended !== undefined && !(window as unknown as StudioWindow).studio.state.running, { timeout: 60_000 });
      const got = await p2.evaluate(() => ({ stdout: (window as unknown as StudioWindow).studio.state.stdout, trace: (window as unknown as StudioWindow).studio.state.trace }));
      assert.equal(got.stdout, stdout);
      assert.equal(got.trace, fs.readFileSync(trace, 'utf8'));
      assert.deepEqual(await p2.$$eval('.device', (els) => els.map((e) => (e as HTMLElement).dataset.app)), ['lamp.bapp', 'counter.bapp']);
      assert.equal(await p2.$eval('#led-0-0', (e) => (e as HTMLElement).dataset.rgb), '255,0,0');
    } finally {
      await p2.close();
      await own.close();
    }

    // A scenario opened in the page looks for its apps in examples/: one that is not there is
    // named, and nothing runs.
    await page.evaluate((text: string) => (window as unknown as StudioWindow).studio.openFile('fleet.json', text), JSON.stringify({ devices: [{ name: 'x', app: 'no-such-app.ts' }] }));
    await page.click('#run');
    await waitConsole('no-such-app.ts');
    assert.match(await consoleText(), /beacon run: fleet\.json: devices\[0\]\.app: cannot read no-such-app\.ts/);
    assert.equal(await page.evaluate(() => (window as unknown as StudioWindow).studio.state.running), false);
    await page.click('#clear-scenario');
  });

  test('a deployment in the scenario: B runs from its install on, as beacon run runs it; the cloud panel shows it installed', async () => {
    const fleet = path.join(dir, 'deploy');
    fs.mkdirSync(fleet, { recursive: true });
    // A sync handler keeps each app running, syncing every 2 minutes.
    for (const app of ['A', 'B']) fs.writeFileSync(path.join(fleet, `${app.toLowerCase()}.ts`), `sync.setEndHandler(() => print('${app} synced'));\nsync.setSyncPeriod('2 min');\nprint('app ${app} starts');\n`);
    const scenario = { utc: '2026-01-01T00:00:00Z', duration: '8m', devices: [{ name: 'd0', app: 'a.ts' }], events: [{ at: '3m', device: 'd0', cloudDeploy: { app: 'b.ts' } }] };
    const world = path.join(fleet, 'deploy.json');
    fs.writeFileSync(world, JSON.stringify(scenario));
    const trace = path.join(fleet, 'cli.jsonl');
    const stdout = await beaconOut(['run', '--world', world, '--trace', trace], fleet);
    assert.match(stdout, /app B starts/);

    const { startStudio } = await import('../src/studio/server');
    const own = await startStudio({ port: 0, world });
    const p2 = await browser.newPage();
    try {
      await p2.goto(own.url);
      await p2.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
      await p2.select('#speed', 'max');
      await p2.click('#run');
      await p2.waitForFunction(() => (window as unknown as StudioWindow).studio.state.ended !== undefined && !(window as unknown as StudioWindow).studio.state.running, { timeout: 60_000 });
      const got = await p2.evaluate(() => ({ stdout: (window as unknown as StudioWindow).studio.state.stdout, trace: (window as unknown as StudioWindow).studio.state.trace }));
      assert.equal(got.stdout, stdout);
      assert.equal(got.trace, fs.readFileSync(trace, 'utf8'));
      const offer = records(got.trace).find((x) => x.ev === 'cloud-deploy-offer')!;
      await p2.waitForSelector('#cloud-0 tr.cloud-deployment', { timeout: 10_000 });
      const row = await p2.$eval('#cloud-0 tr.cloud-deployment', (e) => ({ outcome: (e as HTMLElement).dataset.outcome, cells: Array.from(e.querySelectorAll('td')).map((td) => td.textContent) }));
      assert.deepEqual(row, { outcome: 'installed', cells: [(Number(offer.t) / 1000).toFixed(1), String(offer.package), '1×', `${String(offer.size)} of ${String(offer.size)} B`, 'installed (reported)'] });
    } finally {
      await p2.close();
      await own.close();
    }
  });

  test('a type error shows in the editor at its line', async () => {
    const source = "let count = 0;\nio.press(() => {\n  const label: number = 'three';\n  print(label + count);\n});\n";
    await page.evaluate((s: string) => (window as unknown as { studio: { setSource(t: string, n: string): void } }).studio.setSource(s, 'typo.ts'), source);
    await page.waitForSelector('#problems .problem.error[data-line="3"]', { timeout: 30_000 });
    const text = await page.$eval('#problems .problem.error', (e) => e.textContent);
    assert.match(text ?? '', /^typo\.ts:3: error: Type 'string' is not assignable to type 'number'/);
    // Marked in the editor itself, on the declaration of line 3.
    await page.waitForSelector('.cm-lintRange-error', { timeout: 10_000 });
    const marked = await page.$$eval('.cm-lintRange-error', (els) => els.map((e) => e.textContent));
    assert.ok(marked.includes('label'), JSON.stringify(marked));
  });

  test('a runtime error shows the TypeScript line', async () => {
    const source = ['let presses = 0;', 'function check(n: number): void {', '  if (n > 0) {', "    throw new Error('pressed ' + n);", '  }', '}', 'io.press(() => {', '  presses++;', '  check(presses);', '}, io.PressType.SHORT);', "print('armed');", ''].join('\n');
    await page.evaluate((s: string) => (window as unknown as { studio: { setSource(t: string, n: string): void } }).studio.setSource(s, 'crash.ts'), source);
    await page.select('#speed', '1');
    await page.click('#run');
    await waitConsole('armed');
    await page.click('#button-main-0');
    await waitConsole('pressed 1');
    const text = await consoleText();
    assert.match(text, /Error: pressed 1.*crash\.ts:4:\d+/s);
    assert.doesNotMatch(text, /app\.min\.js/);
    await page.click('#stop');
  });

  test('a corrupt package dropped onto the page is refused as the CLI refuses it; the running app goes on', async () => {
    const bad = Buffer.concat([Buffer.from('BAPP'), Buffer.alloc(60, 7)]);
    fs.writeFileSync(path.join(dir, 'broken.bapp'), bad);
    const cli = await runChild(process.execPath, [BEACON, 'run', 'broken.bapp'], 120_000, dir);
    assert.equal(cli.status, 1);
    // The CLI names the file by its path; the page, which gets no path with a drop, by its name.
    const prefix = `beacon-sim: ${path.join(dir, 'broken.bapp')}: `;
    const cliLine = cli.stderr.split('\n').find((l) => l.startsWith(prefix));
    assert.ok(cliLine, cli.stderr);
    const refusal = `beacon-sim: broken.bapp: ${cliLine.slice(prefix.length)}`;

    await openExample('button-led.ts');
    await page.select('#speed', '1');
    await page.click('#run');
    await waitConsole('ready: 3 LEDs');
    await page.click('#button-main-0');
    await waitConsole('short press 1');
    // A real drop: the page's drop handler gets a File in a DataTransfer.
    await page.evaluate((bytes: number[]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'broken.bapp'));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, Array.from(bad));
    await waitConsole('broken.bapp');
    const lines = (await consoleText()).split('\n');
    assert.ok(lines.includes(refusal), `${refusal}\n---\n${lines.join('\n')}`);
    // Untouched: still running, the same app answers the next press, the LEDs kept their colour.
    assert.equal(await page.evaluate(() => (window as unknown as { studio: { state: { running: boolean } } }).studio.state.running), true);
    await page.click('#button-main-0');
    await waitConsole('short press 2: steady, colour 2');
    await page.waitForFunction(() => document.getElementById('led-0-0')?.dataset.rgb === '0,0,255', { timeout: 10_000 });
    await page.click('#stop');
  });

  test('no request left 127.0.0.1, and the page raised no error', () => {
    assert.deepEqual(leaks, []);
    assert.deepEqual(pageErrors, []);
  });
});
