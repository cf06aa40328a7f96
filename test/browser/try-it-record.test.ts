// The try-it consoles' "Record" toggle in headless Chromium (issue 31): on the API reference, the
// reader turns Record on, creates a webhook subscription and pings it (the ping's path carries the
// id the first answer gave, filled in by the console), turns Record off and downloads the
// recording. The file is the in-page mock's Arazzo workflow: the id is a runtime expression from
// the step that issued it, the reader's key appears nowhere (not even in the URL the reader wrote
// it into), and the package's runner replays it
// on a fresh mock. The site is the one built for the run (test/helpers/docs-site.ts).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSite } from '../../scripts/serve-site.mjs';
import { replayRecording } from '../../src/recording/replay.js';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { generatedDir, type JsonObject } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';
import { newKey, startStatefulMock, type StatefulMock } from '../helpers/stateful-mock.js';

const SKIP = skipBrowser('try-it Record browser test');
const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;

describe.skipIf(SKIP)('the try-it Record toggle in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let site: { origin: string; close(): Promise<void> };
  let mock: StatefulMock;
  const errors: string[] = [];

  beforeAll(async () => {
    [site, mock] = await Promise.all([builtDocsSite().then((built) => serveSite(built.dir)), startStatefulMock()]);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    await context.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' || route.request().url().startsWith('blob:') ? route.continue() : route.abort()));
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await mock?.close();
  });

  async function drawerConsole(hash: string, id: string): Promise<Locator> {
    await page.evaluate((h) => (location.hash = h), hash);
    const drawer = page.locator('.try-it-drawer');
    if (await drawer.isHidden()) await page.locator('.try-it-toggle').click();
    await expect.poll(() => drawer.locator('section.try-it').getAttribute('data-operation'), { timeout: 10_000 }).toBe(id);
    return drawer.locator(`section.try-it[data-operation="${id}"]`);
  }

  async function send(console: Locator): Promise<{ status: number; body: any }> {
    const before = await console.locator('[data-status]').count();
    await console.locator('.try-it-send').click();
    if (before === 0) await console.locator('[data-status]').waitFor();
    return { status: Number(await console.locator('[data-status]').getAttribute('data-status')), body: JSON.parse((await console.locator('.try-it-response-body').textContent())!) };
  }

  it('records two requests, the second carrying the first one\'s id, and downloads a recording with the id as an expression and no key', async () => {
    await page.goto(`${site.origin}/reference.html#/events/createwebhooksubscription`);
    const create = await drawerConsole('#/events/createwebhooksubscription', 'createWebhookSubscription');
    const key = await create.locator('.try-it-key').inputValue();
    expect(key).toMatch(/^sk_live_/);

    // A reader who writes the key into the webhook's URL too (issue 39): the recording sends the
    // replayer's key there, never the reader's.
    const body = create.locator('.try-it-body');
    await body.fill(JSON.stringify({ ...JSON.parse(await body.inputValue()), url: `https://hooks.example.org/in?token=${key}` }));

    await create.locator('.try-it-record-toggle').check();
    await expect(create.locator('.try-it-record').textContent()).resolves.toContain('recording try-it-1');
    const created = await send(create);
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^wh_/);

    const ping = await drawerConsole('#/events/pingwebhook', 'pingWebhook');
    await expect(ping.locator('[data-param="path:id"]').inputValue()).resolves.toBe(created.body.id);
    expect((await send(ping)).status).toBeLessThan(300);

    // Off: the toggle in any console ends the one recording of the page and offers the file.
    await ping.locator('.try-it-record-toggle').uncheck();
    const link = ping.locator('.try-it-record-download');
    await expect(link.textContent()).resolves.toBe('Download try-it-1.arazzo.json');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('try-it-1.arazzo.json');
    const text = await readFile((await download.path())!, 'utf8');

    expect(text).not.toContain(key);
    expect(text).not.toContain(created.body.id);
    const recording = JSON.parse(text);
    expect(recording.arazzo).toBe('1.0.1');
    const [first, second] = recording.workflows[0].steps;
    expect([first.stepId, second.stepId]).toEqual(['createWebhookSubscription', 'pingWebhook']);
    expect(first.outputs).toEqual({ id: '$response.body#/id' });
    expect(first.requestBody.payload.url).toBe('https://hooks.example.org/in?token={$inputs.apiKey}');
    expect(text).not.toMatch(/sk_live_[A-Za-z0-9_-]/);
    expect(second.parameters).toContainEqual({ name: 'id', in: 'path', value: '$steps.createWebhookSubscription.outputs.id' });
    expect(second.parameters).toContainEqual({ name: 'Authorization', in: 'header', value: 'Bearer {$inputs.apiKey}' });

    // The download replays whole on a fresh mock (another key, another id).
    const result = await replayRecording({ recording, document, controlDocument, baseUrl: mock.url, apiKey: newKey('try-it-replay'), isMock: true });
    expect(result.steps.map((s) => [s.stepId, s.outcome])).toEqual([
      ['createWebhookSubscription', 'passed'],
      ['pingWebhook', 'passed'],
    ]);
    expect(errors).toEqual([]);
  }, 60_000);
});
