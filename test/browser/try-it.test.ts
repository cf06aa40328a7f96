// The docs site's try-it consoles and search in a real headless Chromium (Debian's package, driven
// by playwright-core), with nothing running but a static file server for the built site: the
// walk the landing page and the docs-site guide write down, followed as written with the consoles' defaults
// (sign up on "Getting a key", back to the landing page, "Send a message", then "List recent
// messages" and "Wait for an event" by clicking Redoc's menu, Advance clock), every answer given
// by the stateful mock in the page (the package's MSW handlers under the site's service worker);
// the drawer following the reader by the menu, the back button, scrolling and the site's search;
// then a switch to a real stateful mock over HTTP (what `npm start` runs, on a free port) and one
// request it answers across origins (CORS); then the site-wide search finding a guide paragraph
// and an error code. No request may leave loopback: every other one is aborted and fails the
// test. A screenshot of each step goes to test-results/try-it/.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSite } from '../../scripts/serve-site.mjs';
import { launchChromium, loopbackPage, skipBrowser } from '../helpers/chromium.js';
import { loadDereferencedOpenApi, loadOpenApi, repoRoot } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';
import { startStatefulMock, type StatefulMock } from '../helpers/stateful-mock.js';

const SKIP = skipBrowser('try-it browser tests');
const SHOTS = path.join(repoRoot, 'test-results/try-it');
const openapi = loadOpenApi();
const dereferenced = loadDereferencedOpenApi();
const signupCode = (openapi['x-test-values'] as { name: string; value: string }[]).find((t) => t.name === 'signupCode')!.value;
const operation = (id: string) => {
  for (const [p, item] of Object.entries(openapi.paths as Record<string, Record<string, { operationId?: string; tags?: string[]; summary?: string }>>)) {
    for (const [method, op] of Object.entries(item)) if (op.operationId === id) return { method: method.toUpperCase(), path: p, tag: op.tags![0]!, summary: op.summary ?? id };
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
    page = await loopbackPage(context, outside, errors);
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

  /** Redoc's menu entry of an operation (its summary), opened by a click as a reader does: Redoc moves by pushState. */
  /** Clicks `id`'s menu entry, its tag first when it is closed; whether the tag was clicked (a page of its own in the history). */
  async function clickMenu(id: string): Promise<boolean> {
    const op = operation(id);
    const menu = page.locator('[data-component-name="Menu/Menu"]');
    const entry = menu.locator(`a[href$="/${id.toLowerCase()}"]`).first();
    // The entry sits under its tag, which opens on a click.
    const openTag = !(await entry.isVisible());
    if (openTag) await menu.locator(`a[href="#/${op.tag.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}"]`).first().click();
    await entry.click();
    return openTag;
  }
  const toggle = () => page.locator('.try-it-toggle');
  const drawerConsole = () => page.locator('.try-it-drawer section.try-it');
  /** Waits until the drawer's button names `id`'s operation and, when open, the drawer holds its console. */
  async function drawerFollows(id: string): Promise<Locator> {
    const { summary } = operation(id);
    await expect.poll(() => toggle().textContent(), { timeout: 10_000 }).toBe(`Try it: ${summary}`);
    if (await page.locator('.try-it-drawer').isVisible()) await expect.poll(() => drawerConsole().getAttribute('data-operation'), { timeout: 10_000 }).toBe(id);
    return page.locator(`.try-it-drawer section.try-it[data-operation="${id}"]`);
  }

  it("walks the landing page's steps as written, with the consoles' defaults, moving through the reference by its menu", async () => {
    await page.goto(`${site.origin}/index.html`);
    const steps = page.locator('h2#try-it ~ ol').first();
    // The walk makes exactly the choices the landing page and the docs-site guide write down, and no other.
    const written = (await steps.textContent()) ?? '';
    const guide = readFileSync(path.join(repoRoot, 'docs/guides/docs-site.md'), 'utf8');
    const guideWalk = /State carries across pages[\s\S]*?\n\n/.exec(guide)?.[0] ?? '';
    for (const choice of ['withCoupon', 'Use this key', 'Advance clock', signupCode]) {
      expect(written, `landing page names ${choice}`).toContain(choice);
      expect(guideWalk, `docs/guides/docs-site.md names ${choice}`).toContain(choice);
    }

    // 1. Getting a key: the sign-up steps (the first with withCoupon), the code a click away, then the key.
    await steps.getByRole('link', { name: 'Getting a key' }).click();
    const signUp = guideConsole('signUp');
    await signUp.locator('.try-it-example').selectOption('withCoupon');
    const signed = await send(signUp);
    expect(signed.status).toBe(200);
    expect(signed.where).toContain('answered in this page by the service worker');
    await shot('sign-up');
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
    await expect(guideConsole('listNumbers').locator('.try-it-curl pre').textContent()).resolves.toContain('curl');
    await guideConsole('verifyPhoneNumber').scrollIntoViewIfNeeded();
    await shot('account-created-key-in-use');

    // 2. Back on the landing page, "Send a message": open Try it and send, as the form starts.
    await page.goBack();
    await steps.getByRole('link', { name: 'Send a message' }).click();
    await page.waitForURL(/reference\.html#/);
    const sendConsole = await drawerFollows('sendMessage');
    await toggle().click();
    await sendConsole.waitFor();
    expect(JSON.parse(await sendConsole.locator('.try-it-body').inputValue()).fromNumberId).toBe(numbers.body[0].id);
    const sent = await send(sendConsole);
    expect(sent.status).toBe(201);
    expect(sent.where).toContain('service worker');
    await shot('send-a-message');

    // "List recent messages", by Redoc's menu: the drawer follows, and the message is there, newest first.
    await clickMenu('listMessages');
    const list = await send(await drawerFollows('listMessages'));
    expect(list.status).toBe(200);
    expect(list.body[0].id).toBe(sent.body.id);
    await shot('list-recent-messages');

    // 3. "Wait for an event", by the menu: start the wait as the form starts, then move the in-page
    // mock's clock; the delivery of the message just sent answers it.
    const viaTag = await clickMenu('waitForEvent');
    const wait = await drawerFollows('waitForEvent');
    await wait.locator('.try-it-send').click();
    await wait.locator('.try-it-pending').waitFor();
    await wait.locator('.try-it-advance').click();
    await wait.locator('[data-status]').waitFor({ timeout: 20_000 });
    const event = JSON.parse((await wait.locator('.try-it-response-body').textContent())!);
    expect(event).toMatchObject({ type: 'message.status_changed', data: { messageId: sent.body.id } });
    await shot('wait-for-the-event');

    // The back button: the Events tag's page when the menu opened it on the way (a busy page may
    // have drawn the tag open already), where the wait is the operation on screen; once more, the
    // list, its console as the reader left it.
    if (viaTag) {
      await page.goBack();
      await drawerFollows('waitForEvent');
    }
    await page.goBack();
    const listAgain = await drawerFollows('listMessages');
    await expect(listAgain.locator('[data-status]').getAttribute('data-status')).resolves.toBe('200');

    // Scrolling: the drawer follows the section under the reader's eyes (Redoc mostly leaves the
    // address on the operation opened, and sometimes moves it: either way).
    // (Redoc draws the next sections as they come near, so the section is looked up at each step.)
    const typingTop = () => page.evaluate(() => document.getElementById('messaging/settypingindicator')?.getBoundingClientRect().top ?? Infinity);
    await page.mouse.move(300, 500);
    for (let i = 0; i < 60 && (await typingTop()) > 150; i += 1) await page.mouse.wheel(0, 250);
    expect(await typingTop()).toBeLessThanOrEqual(150);
    await drawerFollows('setTypingIndicator');
    await shot('scrolled-to-typing-indicator');
    const listTop = () => page.evaluate(() => document.getElementById('messaging/listmessages')?.getBoundingClientRect().top ?? -Infinity);
    for (let i = 0; i < 100 && (await listTop()) < 60; i += 1) await page.mouse.wheel(0, -100);
    await drawerFollows('listMessages');

    // The site's search, the reference's only one (Ctrl+K opens it, not Redoc's): an operation
    // found and opened; the drawer follows.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+k');
    await expect(page.evaluate(() => !!document.activeElement?.closest('.site-search'))).resolves.toBe(true);
    await expect(page.locator('[role="dialog"]').count()).resolves.toBe(0);
    await page.locator('.site-search input').fill('List group conversations');
    const hit = page.locator('.site-search-results a[data-kind="operation"]').first();
    await hit.waitFor();
    await hit.click();
    await drawerFollows('listGroups');

    // Reset: the mock forgets the account (its key now opens a fresh demo account, with no such message).
    await page.locator('.try-it-drawer .try-it-reset').click();
    await clickMenu('listMessages');
    const afterReset = await send(await drawerFollows('listMessages'));
    expect(afterReset.body.map((m: { id: string }) => m.id)).not.toContain(sent.body.id);
  }, 120_000);

  it('writes the request of the example selected in TypeScript, curl, JavaScript, Python, Go and Java', async () => {
    await clickMenu('sendMessage');
    const sendConsole = await drawerFollows('sendMessage');
    if (!(await sendConsole.isVisible())) await toggle().click();
    const { path: p, method } = operation('sendMessage');
    const examples = Object.entries(dereferenced.paths[p][method.toLowerCase()].requestBody.content['application/json'].examples as Record<string, { value: Record<string, unknown> }>);
    expect(examples.length).toBeGreaterThan(1);
    for (const [name, { value }] of examples) {
      await sendConsole.locator('.try-it-example').selectOption(name);
      // A value only this example has, in every language's code of the form's request.
      const mark = String(value.body ?? (value.mediaUrls as string[])[0]);
      for (const language of ['typescript', 'curl', 'javascript', 'python', 'go', 'java']) {
        await expect.poll(() => sendConsole.locator(`.try-it-${language} pre`).textContent(), { message: `${name} in ${language}` }).toContain(mark);
      }
    }
    // The code never holds the key; the language chosen is every console's.
    await expect(sendConsole.locator('.try-it-code').textContent()).resolves.not.toMatch(/sk_live_/);
    await sendConsole.locator('.try-it-code-tabs [data-language="python"]').click();
    await expect(sendConsole.locator('.try-it-python').isVisible()).resolves.toBe(true);
    await expect(sendConsole.locator('.try-it-curl').isVisible()).resolves.toBe(false);
    await shot('code-of-the-selected-example');
    await clickMenu('listMessages');
    const listConsole = await drawerFollows('listMessages');
    await expect(listConsole.locator('.try-it-python').isVisible()).resolves.toBe(true);
    await expect(listConsole.locator('.try-it-python pre').textContent()).resolves.toContain('http.client');
  }, 60_000);

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
    /** Types `query` in the site search; its first hit of `kind` reads `names`; followed, it opens `to`. */
    const follow = async (query: string, kind: string, names: string, shotName: string, to: RegExp) => {
      await box.fill(query);
      const hit = page.locator(`.site-search-results a[data-kind="${kind}"]`).first();
      await hit.waitFor();
      await expect(hit.textContent()).resolves.toContain(names);
      await shot(shotName);
      await hit.click();
      await page.waitForURL(to);
    };
    // A sentence only the receiving-events guide says.
    await follow('presence-based', 'guide', 'Receiving events', 'search-guide-paragraph', /receiving-events\.html/);
    await expect(page.locator("main").textContent()).resolves.toContain("presence-based");
    // An error code, by its machine name, from another page.
    await page.keyboard.press('/');
    await follow('call_limit_reached', 'error code', 'call_limit_reached', 'search-error-code', /errors\.html#code-call_limit_reached$/);
    await expect(page.locator('#code-call_limit_reached').isVisible()).resolves.toBe(true);
  }, 60_000);

  it('sent nothing beyond loopback and logged no error', () => {
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
