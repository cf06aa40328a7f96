// The stateful mock called from a page on another origin, in real headless Chromium (issue 21):
// CORS for a bearer-token API (a keyed JSON POST with its preflight, and a 401, are readable from
// any origin, without credentials), and a long poll that works in a browser: a page's
// `events/wait` with `timeout: 3` sees its 408 once, within 3.5 s, after earlier requests on the
// same page (Chromium re-sends a 408 that comes on a reused keep-alive connection; the mock
// answers browsers `Connection: close`), and the mock logs one wait, not two or three.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { newKey, startStatefulMock, type StatefulMock } from '../helpers/stateful-mock.js';

const skip = skipBrowser('The mock from a page on another origin');

describe.skipIf(skip)('the stateful mock from a page on another origin (Chromium)', () => {
  let mock: StatefulMock;
  let page: http.Server;
  let pageUrl: string;
  let browser: Browser;
  const log: string[] = [];

  beforeAll(async () => {
    mock = await startStatefulMock({ log: (line) => log.push(line) });
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>frontend</title><p>a frontend on its own origin</p>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    await mock?.close();
  });

  async function openPage() {
    const context = await browser.newContext();
    const tab = await context.newPage();
    // Nothing leaves loopback.
    await tab.route(/^(?!http:\/\/(127\.0\.0\.1|localhost)[:/])/, (route) => route.abort());
    await tab.goto(pageUrl);
    return { tab, close: () => context.close() };
  }

  it('reads a keyed JSON POST (after its preflight) and a 401 from another origin, without credentials', async () => {
    const { tab, close } = await openPage();
    try {
      const result = await tab.evaluate(
        async ({ base, key }) => {
          const send = await fetch(`${base}/api/v1/messages`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Prefer: 'example=oneToOneSms' },
            body: JSON.stringify({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'hi' }),
          });
          const refused = await fetch(`${base}/api/v1/account`);
          return { send: send.status, sent: (await send.json()).channel, refused: refused.status, error: typeof (await refused.json()).error };
        },
        { base: mock.url, key: newKey('page') },
      );
      expect(result).toEqual({ send: 201, sent: 'sms', refused: 401, error: 'string' });
    } finally {
      await close();
    }
  });

  it('a wait with timeout 3 sees its 408 once, within 3.5 s, after earlier requests of the page', async () => {
    const { tab, close } = await openPage();
    try {
      const key = newKey('wait408');
      const before = log.filter((line) => line.includes('/api/v1/events/wait')).length;
      const result = await tab.evaluate(
        async ({ base, key }) => {
          const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
          // Earlier requests: without the mock's rule, the wait would go on one of their kept-alive connections.
          for (let i = 0; i < 3; i++) await (await fetch(`${base}/api/v1/account`, { headers })).json();
          const started = performance.now();
          const wait = await fetch(`${base}/api/v1/events/wait`, { method: 'POST', headers, body: JSON.stringify({ timeout: 3, filters: { groupId: 'grp_none_of_this_account' } }) });
          return { status: wait.status, ms: performance.now() - started };
        },
        { base: mock.url, key },
      );
      expect(result.status).toBe(408);
      expect(result.ms).toBeGreaterThanOrEqual(2900);
      expect(result.ms).toBeLessThan(3500);
      const waits = log.filter((line) => line.includes('/api/v1/events/wait')).slice(before);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toMatch(/POST \/api\/v1\/events\/wait 408/);
    } finally {
      await close();
    }
  });
});
