// The browser and WebAssembly figures of bench/studio.sh (see there). Prints "name: value unit".
'use strict';
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist', 'src');
const { startStudio } = require(path.join(dist, 'studio', 'server.js'));
const { WasmWorld } = require(path.join(dist, 'studio', 'world.js'));

const UTC = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

function best(n, f) {
  let min = Infinity;
  for (let i = 0; i < n; i++) min = Math.min(min, f());
  return min;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  try {
    const beacon = path.join(root, 'bindings-ts', 'bin', 'beacon.js');
    const pkg = path.join(work, 'tracker.bapp');
    execFileSync(process.execPath, [beacon, 'build', path.join(root, 'examples', 'asset-tracker.ts'), '-o', pkg], { stdio: 'ignore' });
    const pkgBytes = fs.readFileSync(pkg);

    // Natively: the whole beacon-sim process, as `beacon run` starts it.
    const sim = path.join(root, 'build', 'host', 'beacon-sim');
    const nativeOnce = () => {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(sim, ['--for', String(DAY), '--utc', String(UTC), pkg], { stdio: 'ignore' });
      if (r.status !== 0) throw new Error('beacon-sim failed');
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };

    // The same module in node, instantiation included.
    const wasmDir = path.join(root, 'build', 'wasm');
    const factory = require(path.join(wasmDir, 'beacon-sim-duktape.js'));
    const wasmBytes = fs.readFileSync(path.join(wasmDir, 'beacon-sim-duktape.wasm'));
    let nodeBest = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const w = await WasmWorld.create(factory, wasmBytes);
      w.open(undefined, 1, UTC);
      w.setPackage(0, pkgBytes);
      w.start();
      w.runUntil(DAY);
      nodeBest = Math.min(nodeBest, performance.now() - t0);
    }
    const nativeNode = best(5, nativeOnce);
    console.log(`tracker_24h_native: ${nativeNode.toFixed(0)} ms (best of 5)`);
    console.log(`tracker_24h_wasm_node: ${nodeBest.toFixed(0)} ms (${(nodeBest / nativeNode).toFixed(2)} x native)`);

    if (!CHROMIUM) {
      console.error('studio-bench: chromium is not installed: no page figures');
      return;
    }
    const studio = await startStudio({ port: 0 });
    const puppeteer = require('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${path.join(work, 'profile')}`],
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1000 });
      // Page load to ready: navigation start to the editor, examples and simulator loaded.
      const loads = [];
      for (let i = 0; i < 3; i++) {
        await page.goto(studio.url);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
        loads.push(await page.evaluate(() => window.studio.state.readyMs));
      }
      console.log(`studio_page_load_to_ready: ${median(loads).toFixed(0)} ms (median of 3)`);

      // The tracker in the page: Run at "as fast as possible" to the end of the day, as a user
      // does (the page draws meanwhile), from the click on Run to the end shown, measured by the
      // page itself; each page run is paired with a native run just before it, so both meet the
      // same load on the machine (a shared one varies a lot), and the ratio is of the pair.
      await page.evaluate((bytes) => window.studio.openFile('tracker.bapp', bytes), Array.from(pkgBytes));
      await page.evaluate((text) => window.studio.openFile('day.json', text), JSON.stringify({ utc: UTC, duration: '24h' }));
      await page.select('#speed', 'max');
      // A user reads the page for a moment before the first Run: the page warms the module's
      // code up meanwhile (about 1.5 s, see worker.ts).
      await new Promise((r) => setTimeout(r, 3000));
      const pairs = [];
      for (let i = 0; i < 7; i++) {
        const native = nativeOnce();
        const t0 = Date.now();
        await page.click('#run');
        await page.waitForFunction(() => window.studio.state.ended !== undefined && !window.studio.state.running, { timeout: 120_000, polling: 10 });
        const outer = Date.now() - t0;
        const { inner, busy } = await page.evaluate(() => ({ inner: window.studio.state.runEndMs - window.studio.state.runClickMs, busy: window.studio.state.worldBusyMs }));
        // The first run warms the engine's compiled code up, as a user's first Run does.
        if (i > 0) pairs.push({ native, inner, outer, busy });
        else console.log(`tracker_24h_page_first_run: ${inner.toFixed(0)} ms (the first Run, 3 s after the page was ready; native ${native.toFixed(0)} ms)`);
      }
      const bestPair = pairs.reduce((a, b) => (b.inner / b.native < a.inner / a.native ? b : a));
      const ratios = pairs.map((p) => p.inner / p.native);
      console.log(`tracker_24h_page_run: ${median(pairs.map((p) => p.inner)).toFixed(0)} ms (median of ${pairs.length}; click to end shown, drawing meanwhile)`);
      console.log(`tracker_24h_native_paired: ${median(pairs.map((p) => p.native)).toFixed(0)} ms (median of the native runs paired with them)`);
      console.log(`tracker_24h_page_vs_native: ${median(ratios).toFixed(2)} x (median ratio of ${pairs.length} pairs; best pair ${(bestPair.inner / bestPair.native).toFixed(2)} x: ${bestPair.inner.toFixed(0)} / ${bestPair.native.toFixed(0)} ms)`);
      console.log(`tracker_24h_page_world_work: ${median(pairs.map((p) => p.busy)).toFixed(0)} ms (median; the module's own work in the page's worker, within the Run)`);
      console.log(`tracker_24h_page_run_puppeteer: ${median(pairs.map((p) => p.outer)).toFixed(0)} ms (median; as the test driver sees it, with its round trips)`);

      // Frames per second while an app animates the LEDs of an ai-beacon in real time.
      await page.goto(studio.url);
      await page.waitForSelector('body[data-ready="true"]');
      await page.evaluate((text) => window.studio.openFile('led-spin.js', text), fs.readFileSync(path.join(root, 'bench', 'apps', 'led-spin.js'), 'utf8'));
      await page.evaluate((text) => window.studio.openFile('ring.json', text), JSON.stringify({ devices: [{ profile: 'ai-beacon' }] }));
      await page.select('#speed', '1');
      await page.click('#run');
      await page.waitForFunction(() => window.studio.state.running);
      await new Promise((r) => setTimeout(r, 1500));
      const samples = [];
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        samples.push(await page.evaluate(() => window.studio.fps()));
      }
      const leds = await page.evaluate(() => window.studio.state.trace.split('\n').filter((l) => l.includes('"ev":"led"')).length);
      console.log(`studio_fps_led_animation: ${median(samples)} frames/s (median of 5 one-second samples; ${leds} LED records drawn)`);
      await page.click('#stop');
    } finally {
      await browser.close();
      await studio.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
