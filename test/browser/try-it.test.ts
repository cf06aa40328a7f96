// The docs site's try-it consoles and search in a real headless Chromium (Debian's package, driven
// by playwright-core), with nothing running but a static file server for the built site: the
// walk of issue 19 through the consoles (sign up on "Getting a key", send on "Send a message",
// see it on "List recent messages", wait for its message.status_changed on "Wait for an event"),
// every answer given by the stateful mock in the page (the package's MSW handlers under the
// site's service worker); then a switch to a real stateful mock over HTTP (what `npm start` runs,
// on a free port) and one request it answers across origins (CORS); then the site-wide search
// finding a guide paragraph and an error code. No request may leave loopback: every other one is
// aborted and fails the test. A screenshot of each step goes to test-results/try-it/.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSite } from '../../scripts/serve-site.mjs';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { loadOpenApi, repoRoot } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';
import { startStatefulMock, type StatefulMock } from '../helpers/stateful-mock.js';

const SKIP = skipBrowser('try-it browser tests');
const SHOTS = path.join(repoRoot, 'test-results/try-it');
const openapi = loadOpenApi();
const signupCode = (openapi['x-test-values'] as { name: string; value: string }[]).find((t) => t.name === 'signupCode')!.value;
const operation = (id: string) => {
  for (const [p, item] of Object.entries(openapi.paths as Record<string, Record<string, { operationId?: string; tags?: string[] }>>)) {
    for (const [method, op] of Object.entries(item)) if (op.operationId === id) return { method: method.toUpperCase(), path: p, tag: op.tags![0]! };
  }
  throw new Error(`no operation ${id}`);
};

describe.skipIf(SKIP)('try-it consoles and search in headless Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let site: { origin: string; close(): Promise<void> };
  let mock: StatefulMock;
  const outside: string[] = [];
  const errors: string[] = [];
  let step = 0;
  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const built = await builtDocsSite();
    site = await serveSite(built.dir);
    mock = await startStatefulMock();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    // Loopback only: the site's server, the mock's address (answered in the page) and the real mock.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (/^(data|blob|about):$/.test(url.protocol) || url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
      outside.push(url.href);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of [45]\d\d/.test(message.text())) errors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await mock?.close();
  });

  /** Sends a console's form and returns its answer's status, body (parsed) and where it was answered. */
  async function send(console: Locator, timeout = 15_000): Promise<{ status: number; body: any; where: string }> {
    await console.locator('.try-it-send').click();
    const status = console.locator('[data-status]');
    await status.waitFor({ timeout });
    const text = (await console.locator('.try-it-response-body').textContent()) ?? '';
    return { status: Number(await status.getAttribute('data-status')), body: text ? JSON.parse(text) : null, where: (await console.locator('.try-it-status').textContent()) ?? '' };
  }

  const guideConsole = (id: string) => page.locator(`section.try-it[data-operation="${id}"]`);
  /** The reference's drawer on an operation's route. */
  async function referenceConsole(id: string): Promise<Locator> {
    const op = operation(id);
    const hash = `#/${op.tag.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}/${id.toLowerCase()}`;
    if (!page.url().includes('/reference.html')) await page.goto(`${site.origin}/reference.html${hash}`);
    else await page.evaluate((h) => (location.hash = h), hash);
    const drawer = page.locator('.try-it-drawer');
    if (await drawer.isHidden()) await page.locator('.try-it-toggle').click();
    const console = drawer.locator(`section.try-it[data-operation="${id}"]`);
    await console.waitFor();
    await expect(console.locator('.try-it-head').textContent()).resolves.toContain(`${op.method} ${op.path}`);
    return console;
  }

  it('walks sign-up → send → list → wait through the consoles, every answer from the mock in the page', async () => {
    await page.goto(`${site.origin}/getting-a-key.html`);
    // Sign up for a new account with the coupon example (its credit pays for the send).
    const signUp = guideConsole('signUp');
    await signUp.locator('.try-it-example').selectOption('withCoupon');
    const signed = await send(signUp);
    expect(signed.status).toBe(200);
    expect(signed.where).toContain('answered in this page by the service worker');
    await shot('sign-up');

    // The verificationId of that answer fills the next form; the code is the mock's test value.
    const verify = guideConsole('verifyEmail');
    expect(JSON.parse(await verify.locator('.try-it-body').inputValue()).verificationId).toBe(signed.body.verificationId);
    await verify.locator('[data-test-value="signupCode"]').click();
    const verified = await send(verify);
    expect(verified.status).toBe(200);
    expect(verified.body.registrationId).toMatch(/^reg_/);
    expect((await send(guideConsole('registerNumber'))).status).toBe(200);
    const verifyNumber = guideConsole('verifyPhoneNumber');
    await verifyNumber.locator('[data-test-value="signupCode"]').click();
    const created = await send(verifyNumber);
    expect(created.status).toBe(200);
    expect(created.body.apiKey).toMatch(/^sk_live_/);
    expect(JSON.parse(await verifyNumber.locator('.try-it-body').inputValue()).code).toBe(signupCode);
    await verifyNumber.locator('.try-it-use-key').click();
    await expect(page.locator('.try-it-key').first().inputValue()).resolves.toBe(created.body.apiKey);
    const numbers = await send(guideConsole('listNumbers'));
    expect(numbers.status).toBe(200);
    expect(numbers.body[0].number).toBe(created.body.phoneNumber);
    // The curl and TypeScript of what was sent: this package's client, the key from the environment.
    const ts = (await guideConsole('listNumbers').locator('.try-it-typescript pre').textContent()) ?? '';
    expect(ts).toContain("from 'numbers-api-contract/client'");
    expect(ts).toContain("api.GET('/api/v1/numbers')");
    expect(ts).not.toContain(created.body.apiKey);
    await expect(guideConsole('listNumbers').locator('.try-it-curl pre').textContent()).resolves.toContain('curl -X GET');
    await guideConsole('verifyPhoneNumber').scrollIntoViewIfNeeded();
    await shot('account-created-key-in-use');

    // "Send a message" in the reference: the example's number id is the new account's (from the list above).
    const sendConsole = await referenceConsole('sendMessage');
    expect(JSON.parse(await sendConsole.locator('.try-it-body').inputValue()).fromNumberId).toBe(numbers.body[0].id);
    const sent = await send(sendConsole);
    expect(sent.status).toBe(201);
    expect(sent.where).toContain('service worker');
    await shot('send-a-message');

    // "List recent messages": the message is there, newest first.
    const list = await send(await referenceConsole('listMessages'));
    expect(list.status).toBe(200);
    expect(list.body[0].id).toBe(sent.body.id);
    await shot('list-recent-messages');

    // "Wait for an event", on a fresh page load (the mock's state carried over): start the wait,
    // then move the in-page mock's clock; the delivery answers it.
    await page.goto(`${site.origin}/reference.html`);
    const wait = await referenceConsole('waitForEvent');
    await wait.locator('.try-it-example').selectOption('anyEvent');
    await wait.locator('.try-it-send').click();
    await wait.locator('.try-it-pending').waitFor();
    await wait.locator('.try-it-advance').click();
    await wait.locator('[data-status]').waitFor({ timeout: 20_000 });
    const event = JSON.parse((await wait.locator('.try-it-response-body').textContent())!);
    expect(event).toMatchObject({ type: 'message.status_changed', data: { messageId: sent.body.id } });
    await shot('wait-for-the-event');

    // Reset: the mock forgets the account (its key now opens a fresh demo account, with no such message).
    await wait.locator('.try-it-reset').click();
    const afterReset = await send(await referenceConsole('listMessages'));
    expect(afterReset.body.map((m: { id: string }) => m.id)).not.toContain(sent.body.id);
  }, 120_000);

  it('switches to a real stateful mock over HTTP and gets its answer across origins (CORS)', async () => {
    const account = await referenceConsole('getAccount');
    await account.locator('[data-target="local"]').check();
    const url = page.locator('.try-it-drawer .try-it-url');
    await url.fill(mock.url);
    await url.dispatchEvent('change');
    const answer = await send(page.locator('.try-it-drawer section.try-it[data-operation="getAccount"]'));
    expect(answer.status).toBe(200);
    expect(answer.where).toContain(`answered by ${mock.url}`);
    expect(answer.body.apiKeys[0].preview).toMatch(/^sk_live_/);
    // The mock allowed this page's origin; the browser would have refused the answer otherwise.
    await page.locator('.try-it-drawer .try-it-headers summary').click();
    await expect(page.locator('.try-it-drawer .try-it-headers').textContent()).resolves.toContain('access-control-allow-origin');
    // The key stayed in the tab's session, never in the URL or in localStorage.
    const stored = await page.evaluate(() => ({ url: location.href, local: JSON.stringify({ ...localStorage }) }));
    expect(stored.url).not.toMatch(/sk_live_/);
    expect(stored.local).not.toMatch(/sk_live_/);
    await shot('local-mock-answer');
    await page.locator('.try-it-drawer [data-target="page"]').check();
  }, 60_000);

  it('searches the whole site: a guide paragraph and an error code', async () => {
    await page.goto(`${site.origin}/index.html`);
    const box = page.locator('.site-search input');
    // A sentence only the receiving-events guide says.
    await box.fill('presence-based');
    const guideHit = page.locator('.site-search-results a[data-kind="guide"]').first();
    await guideHit.waitFor();
    await expect(guideHit.textContent()).resolves.toContain('Receiving events');
    await shot('search-guide-paragraph');
    await guideHit.click();
    await page.waitForURL(/receiving-events\.html/);
    await expect(page.locator("main").textContent()).resolves.toContain("presence-based");
    // An error code, by its machine name, from another page.
    await page.keyboard.press('/');
    await box.fill('call_limit_reached');
    const codeHit = page.locator('.site-search-results a[data-kind="error code"]').first();
    await codeHit.waitFor();
    await expect(codeHit.textContent()).resolves.toContain('call_limit_reached');
    await shot('search-error-code');
    await codeHit.click();
    await page.waitForURL(/errors\.html#code-call_limit_reached$/);
    await expect(page.locator('#code-call_limit_reached').isVisible()).resolves.toBe(true);
  }, 60_000);

  it('sent nothing beyond loopback and logged no error', () => {
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
