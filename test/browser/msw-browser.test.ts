// The in-process mock in a real browser (issue 13): a page built by esbuild from
// test/fixtures/msw-browser-app.ts starts MSW's service worker (setupWorker) with the stateful
// handlers, and walks sign-up → send → list → wait for the status event against the contract's
// base URL, in Debian's headless Chromium driven by playwright-core, served from loopback. No
// request may leave the machine: the service worker answers them all.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/contract.js';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';

const SKIP = skipBrowser('MSW browser tests');
const WORKER_SCRIPT = path.join(path.dirname(createRequire(import.meta.url).resolve('msw/package.json')), 'lib/mockServiceWorker.js');

describe.skipIf(SKIP)('MSW handlers in headless Chromium (setupWorker)', () => {
  let browser: Browser;
  let server: Server;
  let origin = '';
  let app = '';

  beforeAll(async () => {
    const built = await build({
      entryPoints: [path.join(repoRoot, 'test/fixtures/msw-browser-app.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      logLevel: 'silent',
    });
    app = built.outputFiles[0]!.text;
    const files: Record<string, { type: string; body: string }> = {
      '/': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>MSW app</title><link rel="icon" href="data:,"><script type="module" src="/app.js"></script>' },
      '/app.js': { type: 'text/javascript', body: app },
      '/mockServiceWorker.js': { type: 'text/javascript', body: readFileSync(WORKER_SCRIPT, 'utf8') },
    };
    server = createServer((req, res) => {
      const file = files[(req.url ?? '/').split('?')[0]!];
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('walks sign-up → send → list → wait for the status event, every request answered in the page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    const outside: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // The app sends one invalid request on purpose: Chromium logs its 400 as a console error.
      if (message.type() === 'error' && !/status of 400 \(Bad Request\)/.test(message.text())) errors.push(message.text());
    });
    // Only the page's own files may come from the network: every API call is answered by the service worker.
    context.on('response', (response) => {
      if (!response.url().startsWith(origin) && !response.fromServiceWorker()) outside.push(response.url());
    });
    context.on('requestfailed', (request) => outside.push(`${request.url()} (failed)`));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as any).__result !== undefined || (window as any).__error !== undefined, undefined, { timeout: 45_000 });
    expect(await page.evaluate(() => (window as any).__error)).toBeUndefined();
    await page.waitForFunction(() => (window as any).__result.deliveries.length > 0, undefined, { timeout: 10_000 });
    const result = await page.evaluate(() => (window as any).__result);

    const statuses = Object.fromEntries(result.steps.map((s: { step: string; status: number }) => [s.step, s.status]));
    expect(statuses).toEqual({
      'sign-up': 200,
      verify: 200,
      'register-number': 200,
      'verify-number': 200,
      'invalid send': 400,
      numbers: 200,
      subscribe: 201,
      send: 201,
      list: 200,
      wait: 200,
    });
    const invalid = result.steps.find((s: { step: string }) => s.step === 'invalid send').body;
    expect(invalid.error.fieldErrors ?? invalid.error).toBeTruthy();
    const list = result.steps.find((s: { step: string }) => s.step === 'list').body as Array<{ id: string }>;
    expect(list.map((m) => m.id)).toContain(result.sentId);
    expect(result.event).toMatchObject({ type: 'message.status_changed', data: { messageId: result.sentId } });
    expect(result.deliveries).toContain('message.status_changed');
    expect(result.signature).toEqual({ good: true, bad: false });
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  }, 90_000);

  it('the page bundle (handlers, contract, ajv, msw) is measured', () => {
    const gzipped = gzipSync(app).length;
    console.log(`MSW browser app bundle: ${(app.length / 1024).toFixed(0)} KiB minified, ${(gzipped / 1024).toFixed(0)} KiB gzipped`);
    expect(app).not.toMatch(/from\s*["']node:/);
  });
});
