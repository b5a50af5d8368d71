// The studio page in headless chromium, offline, for the studio's browser tests: a studio server
// on a free port, the page loaded and ready, every request that would leave 127.0.0.1 refused and
// kept (a test asserts there is none), and the page's errors kept.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import type { StudioServer } from '../src/studio/server';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

export interface StudioPage {
  studio: StudioServer;
  browser: Browser;
  page: Page;
  /** Scratch directory (the browser's profile is in it). */
  dir: string;
  /** Requests that tried to leave the machine. */
  leaks: string[];
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openStudioPage(prefix: string): Promise<StudioPage> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const { startStudio } = await import('../src/studio/server');
  const studio = await startStudio({ port: 0 });
  const puppeteer = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${path.join(dir, 'profile')}`,
    ],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  await page.setRequestInterception(true);
  const leaks: string[] = [];
  const pageErrors: string[] = [];
  page.on('request', (req: HTTPRequest) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') {
      void req.continue();
    } else {
      leaks.push(req.url());
      void req.abort();
    }
  });
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto(studio.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  return {
    studio,
    browser,
    page,
    dir,
    leaks,
    pageErrors,
    close: async () => {
      await browser.close();
      await studio.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
