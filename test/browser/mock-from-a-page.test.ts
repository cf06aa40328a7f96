// The stateful mock called from a page on another origin, in real headless Chromium (issue 21):
// CORS for a bearer-token API (a keyed JSON POST with its preflight, and a 401, are readable from
// any origin, without credentials), and a long poll that works in a browser: a page's
// `events/wait` with `timeout: 3` sees its 408 once, within 3.5 s, after earlier requests on the
// same page (Chromium re-sends a 408 that comes on a reused keep-alive connection; the mock
// answers browsers `Connection: close`), and the mock logs one wait, not two or three.
// The control surface is not for such pages (issue 27, item 6): a page on an origin of another
// machine (evil.example, mapped to loopback) cannot reset the mock by a simple fetch, a JSON fetch
// (its preflight is refused) or a form; a page of this machine (localhost) can, with JSON.
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

describe.skipIf(skip)('the control surface from pages (Chromium)', () => {
  let mock: StatefulMock;
  let page: http.Server;
  let port: number;
  let browser: Browser;

  beforeAll(async () => {
    mock = await startStatefulMock();
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>a page</title><p>a page</p>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    port = (page.address() as AddressInfo).port;
    // evil.example is a name of another machine to the browser; it resolves here only so the test stays on loopback.
    browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    await mock?.close();
  });

  async function pageAt(origin: string) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    // No request interception here (Playwright answers intercepted preflights itself): the
    // browser's resolver keeps every name but these off the network instead.
    await tab.goto(`${origin}/`);
    return { tab, close: () => context.close() };
  }

  /** A key whose account holds a change: gone after a reset. */
  async function marked(): Promise<() => Promise<boolean>> {
    const key = newKey('marked');
    const patched = await fetch(`${mock.url}/api/v1/account`, { method: 'PATCH', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"maxCallDurationSeconds":1234}' });
    expect(patched.status).toBe(200);
    return async () => {
      const account = await (await fetch(`${mock.url}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } })).json();
      return account.maxCallDurationSeconds === 1234;
    };
  }

  it('a page on another machine’s origin cannot reset the mock: not by a simple fetch, a JSON fetch or a form', async () => {
    const kept = await marked();
    const { tab, close } = await pageAt(`http://evil.example:${port}`);
    try {
      const outcome = await tab.evaluate(async (base) => {
        const simple = await fetch(`${base}/__mock/reset`, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{}' }).then(
          () => 'sent',
          () => 'failed',
        );
        const json = await fetch(`${base}/__mock/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then(
          (response) => `answered ${response.status}`,
          () => 'blocked',
        );
        return { simple, json };
      }, mock.url);
      // The simple request reaches the mock (the browser does not ask first) and is refused there.
      expect(outcome).toEqual({ simple: 'sent', json: 'blocked' });
      await tab.setContent(`<form method="POST" action="${mock.url}/__mock/reset"><input name="a" value="b"></form>`);
      await Promise.all([tab.waitForNavigation(), tab.evaluate(() => document.querySelector('form')!.submit())]);
      // A form carries its Origin: refused as another machine's page.
      expect(await tab.content()).toContain('control surface is not for pages on other machines’ origins (http://evil.example:');
    } finally {
      await close();
    }
    expect(await kept()).toBe(true);
  });

  it('a page of this machine (localhost) can reset it, with JSON', async () => {
    const kept = await marked();
    const { tab, close } = await pageAt(`http://localhost:${port}`);
    try {
      const status = await tab.evaluate(async (base) => (await fetch(`${base}/__mock/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status, mock.url);
      expect(status).toBe(200);
    } finally {
      await close();
    }
    expect(await kept()).toBe(false);
  });
});
