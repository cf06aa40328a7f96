// CORS as a frontend meets it: a page served from another origin calls the real mock (front +
// Prism) from a real headless Chromium, with a key, `Prefer` and a JSON body (so the browser sends
// a preflight), and reads the answers, a 401 included.
//
// Without Chromium, this file is skipped with one line saying why; REQUIRE_BROWSER=1 fails instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../src/mock/start-mock.js';
import { followRef, loadOpenApi } from './helpers/contract.js';
import { VALID_KEY } from './helpers/mock-server.js';
import { skipBrowser, startFrontEnd, type FrontEnd } from './helpers/chromium.js';

const SKIP = skipBrowser('mock browser tests');

const document = loadOpenApi();

interface Seen {
  status: number;
  body: unknown;
}

describe.skipIf(SKIP)('the mock from a browser on another origin', () => {
  let mock: RunningMock;
  let front: FrontEnd;
  const log: string[] = [];

  beforeAll(async () => {
    mock = await startMock({ host: '127.0.0.1', port: 0, stateless: true, log: (line) => log.push(line) });
    await mock.ready;
    front = await startFrontEnd('frontend');
  });

  afterAll(async () => {
    await front?.close();
    await mock?.close();
  });

  async function fetchFromPage(path: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Seen> {
    const context = await front.browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(`${front.origin}/`);
      return await tab.evaluate(
        async ({ url, init }) => {
          const response = await fetch(url, init);
          return { status: response.status, body: await response.json() };
        },
        { url: `${mock.url}${path}`, init },
      );
    } finally {
      await context.close();
    }
  }

  it('reads the account with a key (cross-origin GET)', async () => {
    const seen = await fetchFromPage('/api/v1/account', { headers: { Authorization: VALID_KEY } });
    expect(seen.status).toBe(200);
    const documented: Record<string, unknown> = followRef(document, document.paths['/api/v1/account'].get.responses['200']).content['application/json'].examples;
    expect(seen.body).toEqual(followRef(document, Object.values(documented)[0] as Record<string, unknown>).value);
  });

  it('sends a JSON message with Prefer after a preflight, and reads the documented 402', async () => {
    log.length = 0;
    const seen = await fetchFromPage('/api/v1/messages', {
      method: 'POST',
      headers: { Authorization: VALID_KEY, 'Content-Type': 'application/json', Prefer: 'code=402' },
      body: JSON.stringify({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'Hello from the browser' }),
    });
    expect(seen.status).toBe(402);
    expect(seen.body).toHaveProperty('error');
    // The browser asked first, and the mock said yes.
    expect(log.some((line) => /OPTIONS \/api\/v1\/messages 204/.test(line))).toBe(true);
    expect(log.some((line) => /POST \/api\/v1\/messages 402/.test(line))).toBe(true);
  });

  it('reads a 401 (no key) rather than a network error', async () => {
    const seen = await fetchFromPage('/api/v1/billing', {});
    expect(seen.status).toBe(401);
    expect(seen.body).toEqual({ error: expect.any(String) });
  });
});
