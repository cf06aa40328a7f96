// The reference's code samples run as copied. The built site, served as `npm run docs:serve` serves
// it, is opened in one headless Chromium; the curl, JavaScript and Python sample of every operation
// is read from the page as a reader sees it (Redoc's code block, in the language picked in its
// menu), and run as a reader runs it (sh, node, python3) against one stateful mock, each run through
// a recording proxy of its own: in the text only the mock's port changes (the key is read from
// NUMBERS_API_KEY), plus what the sample's own notes ask a reader to replace (an id an earlier
// answer gave, the mock's sign-up code) and the sign-up email a reader types. Every sample must get
// a 2xx its operation documents. The readers' order: sign-up first (it gives the key the
// subscription samples use), the webhook ping after the webhook is made, the wait while a message
// arrives in the group. Then the server menu: the copy button gives the text shown, and picking a
// deployment writes the samples for it (https, HTTPSConnection), and back.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSamples } from '../../docs/build/code-samples.mjs';
import { tryItCatalog } from '../../docs/build/try-it-catalog.mjs';
import { serveSite } from '../../scripts/serve-site.mjs';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { loadDereferencedOpenApi, type JsonObject } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';
import { newKey, startStatefulMock, type StatefulMock } from '../helpers/stateful-mock.js';

const SKIP = skipBrowser('reference samples browser tests');
const dereferenced = loadDereferencedOpenApi();
const catalog = tryItCatalog(dereferenced);
const MOCK = new URL(catalog.servers[0]!);
const DEPLOYMENT = catalog.servers.find((url) => url.startsWith('https://'))!;

/** How each language's sample is run, and a line only its sample has (the block shows that language). */
const LANGUAGES = {
  curl: { file: 'sample.sh', command: (file: string) => ['sh', file], marker: 'curl --request' },
  JavaScript: { file: 'sample.mjs', command: (file: string) => [process.execPath, file], marker: 'await fetch(url, options)' },
  Python: { file: 'sample.py', command: (file: string) => ['python3', file], marker: 'import http.client' },
} as const;
type Language = keyof typeof LANGUAGES;

const operations = catalog.operations;
const byId = (id: string) => operations.find((op) => op.id === id)!;
/** The JSON body of an operation's sample (its first example). */
const sampleBody = (id: string) => byId(id).sample.body as unknown as JsonObject;
/** Redoc's section of an operation: its route (`messaging/sendmessage`) as the element's id. */
const sectionOf = (route: string) => route.slice(route.indexOf('#/') + 2);
/** The samples a reader runs in an order (read() below): each waits for the one before it. */
const chained = new Set(['signUp', 'verifyEmail', 'registerNumber', 'verifyPhoneNumber', 'createSubscriptionCheckout', 'previewSubscriptionChange', 'changeSubscriptionInterval', 'cancelSubscription', 'resumeSubscription', 'createWebhookSubscription', 'listWebhookSubscriptions', 'pingWebhook', 'listGroups', 'waitForEvent']);
const documentedStatuses = (id: string) => {
  const op = byId(id);
  return Object.keys((dereferenced.paths as JsonObject)[op.path!][op.method.toLowerCase()].responses).map(Number);
};

/** At most this many samples run at once (the machine has two cores); a step of a reader's chain goes first. */
const PARALLEL = 4;
let running = 0;
const queue: Array<() => void> = [];
async function slot<T>(work: () => Promise<T>, first: boolean): Promise<T> {
  if (running >= PARALLEL) await new Promise<void>((resolve) => (first ? queue.unshift(resolve) : queue.push(resolve)));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    queue.shift()?.();
  }
}

interface Ran {
  status: number;
  answer: unknown;
  exit: number | null;
  stderr: string;
  requests: number;
}

describe.skipIf(SKIP)('the reference samples, copied from the page and run against the mock', () => {
  let browser: Browser;
  let site: { origin: string; close(): Promise<void> };
  let mock: StatefulMock;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reference-samples-'));
  const errors: string[] = [];
  /** Each language's sample of each operation, as the page shows it. */
  const copied = new Map<Language, Map<string, string>>();
  /** What ran: `operationId language` → the status the mock answered. */
  const ran = new Map<string, number>();

  async function referencePage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.origin}/${operations[0]!.route}`);
    await page.locator('.panel-request-samples pre[data-testid="source-code"]').first().waitFor();
    return page;
  }

  const panelOf = (page: Page, route: string) => page.locator(`[id="${sectionOf(route)}"] .panel-request-samples`);

  /** Picks an entry of one of the panel's menus: 0 the server menu (method and path), 1 the language. */
  async function pick(page: Page, route: string, menu: 0 | 1, entry: string): Promise<void> {
    const panel = panelOf(page, route);
    await panel.locator('[data-component-name="Panel/PanelHeader"] button[aria-haspopup="menu"]').nth(menu).click();
    // The menu opens where Redoc puts it (the language menu outside the panel): the entry on screen.
    await page.getByRole('menuitem').filter({ hasText: entry, visible: true }).first().click();
  }

  /** The code block of an operation's samples once it shows `marker`: its visible text. */
  async function shownSample(page: Page, route: string, marker: string): Promise<string> {
    await page.evaluate((hash) => (location.hash = hash), route.slice(route.indexOf('#')));
    const block = `[id="${sectionOf(route)}"] .panel-request-samples pre[data-testid="source-code"]`;
    await page.waitForFunction(([selector, text]) => document.querySelector<HTMLElement>(selector)?.innerText.includes(text), [block, marker] as const, { timeout: 15_000 });
    return page.locator(block).innerText();
  }

  /**
   * Every operation's code block once it shows `marker`, read in the page in one go (one round trip,
   * not three per operation): Redoc renders the sections around the one routed to, so a block
   * already there is read where it is, and the page goes to the operation's route otherwise.
   */
  function everySample(page: Page, marker: string): Promise<Record<string, string>> {
    const routes = operations.map((op) => ({ id: op.id, section: sectionOf(op.route), hash: op.route.slice(op.route.indexOf('#')) }));
    return page.evaluate(
      async ([all, text]) => {
        const found: Record<string, string> = {};
        for (const { id, section, hash } of all) {
          const block = () => document.getElementById(section)?.querySelector<HTMLElement>('.panel-request-samples pre[data-testid="source-code"]');
          if (!block()?.innerText.includes(text)) location.hash = hash;
          const deadline = Date.now() + 20_000;
          while (!block()?.innerText.includes(text)) {
            if (Date.now() > deadline) throw new Error(`no sample showing ${text} for ${id}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          found[id] = block()!.innerText;
        }
        return found;
      },
      [routes, marker] as const,
    );
  }

  beforeAll(async () => {
    const built = await builtDocsSite();
    site = await serveSite(built.dir);
    mock = await startStatefulMock();
    browser = await launchChromium();
    // One tab per language: Redoc keeps the language picked for every operation of the page.
    await Promise.all(
      (Object.keys(LANGUAGES) as Language[]).map(async (language) => {
        const page = await referencePage();
        await pick(page, operations[0]!.route, 1, language);
        const samples = new Map<string, string>(Object.entries(await everySample(page, LANGUAGES[language].marker)));
        copied.set(language, samples);
        await page.close();
      }),
    );
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs one copied sample with `key`, the mock's port its only change besides `edits` (a reader's
   * replacements), through a proxy that records the one request it sends; `meanwhile` runs while
   * the request is at the mock (until it answers).
   */
  async function run(language: Language, id: string, key: string, edits: Array<[string, string]> = [], meanwhile?: () => Promise<void>): Promise<Ran> {
    let text = copied.get(language)!.get(id)!;
    const recorded: Array<{ status: number; answer: string }> = [];
    let answered = false;
    let happening: Promise<void> | undefined;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
        const body = Buffer.concat(chunks);
        const pending = fetch(`${mock.url}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() }));
        happening ??= meanwhile && (async () => {
          while (!answered) {
            await meanwhile();
            await new Promise((resolve) => setTimeout(resolve, 300));
          }
        })();
        const answer = await pending;
        answered = true;
        recorded.push({ status: answer.status, answer: answer.text });
        res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(answer.text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      text = text.replaceAll(MOCK.host, `${MOCK.hostname}:${(proxy.address() as AddressInfo).port}`);
      for (const [from, to] of edits) {
        expect(text, `${id} in ${language} shows ${from} to replace`).toContain(from);
        text = text.replaceAll(from, to);
      }
      const file = path.join(dir, `${id}-${language}-${LANGUAGES[language].file}`);
      writeFileSync(file, text);
      const [command, ...args] = LANGUAGES[language].command(file);
      const done = await slot(
        () =>
          new Promise<{ exit: number | null; stderr: string }>((resolve, reject) => {
            const child = spawn(command!, args, { env: { ...process.env, NUMBERS_API_KEY: key }, stdio: ['ignore', 'ignore', 'pipe'] });
            let stderr = '';
            child.stderr.on('data', (d) => (stderr += d));
            child.on('error', reject);
            child.on('close', (exit) => resolve({ exit, stderr }));
          }),
        chained.has(id),
      );
      await happening;
      const last = recorded.at(-1);
      ran.set(`${id} ${language}`, last?.status ?? 0);
      return { ...done, requests: recorded.length, status: last?.status ?? 0, answer: last ? JSON.parse(last.answer || 'null') : undefined };
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }

  /** Runs a sample and expects what a reader expects: one request, a 2xx its operation documents, a clean exit. */
  async function runs(language: Language, id: string, key: string, edits: Array<[string, string]> = [], meanwhile?: () => Promise<void>): Promise<any> {
    const result = await run(language, id, key, edits, meanwhile);
    const where = `${id} in ${language}: ${JSON.stringify(result.answer)} ${result.stderr}`;
    expect(result.requests, where).toBe(1);
    expect(result.status, where).toBeGreaterThanOrEqual(200);
    expect(result.status, where).toBeLessThan(300);
    expect(documentedStatuses(id), where).toContain(result.status);
    expect(result.exit, where).toBe(0);
    return result.answer;
  }

  /** The first string at `field` in an answer (an object, or a list of them). */
  function valueAt(answer: unknown, field: string, test: (value: string) => boolean = () => true): string {
    const stack = [answer];
    while (stack.length) {
      const value = stack.shift();
      if (Array.isArray(value)) stack.push(...value);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if (k === field && typeof v === 'string' && test(v)) return v;
          if (v && typeof v === 'object') stack.push(v);
        }
      }
    }
    throw new Error(`no ${field} in ${JSON.stringify(answer)}`);
  }

  /** The replacements a sample's own notes ask for (code-samples.mjs writes them), from the answers the reader has. */
  function notedEdits(id: string, answers: Map<string, unknown>): Array<[string, string]> {
    const edits: Array<[string, string]> = [];
    const answer = (of: string) => {
      if (!answers.has(of)) throw new Error(`${id}'s notes need the answer of ${of}, which the reader has not run`);
      return answers.get(of);
    };
    for (const line of byId(id).sample.comments ?? []) {
      let m = /^Replace (\S+) with the (\w+) of your (\w+) answer\.$/.exec(line);
      if (m) edits.push([m[1]!, valueAt(answer(m[3]!), m[2]!)]);
      m = /^Replace (\S+) with an id of yours \((\w+) answers them\)\.$/.exec(line);
      if (m) edits.push([m[1]!, valueAt(answer(m[2]!), 'id', (v) => v.startsWith(m![1]!.split('_')[0]! + '_'))]);
      m = /^On the mock the (\w+) is (\S+) \(/.exec(line);
      if (m) edits.push([String(sampleBody(id)[m[1]!]), m[2]!]);
    }
    return edits;
  }

  /** One reader, in one language: every operation's sample, in the order a reader can run them. */
  async function read(language: Language): Promise<void> {
    const answers = new Map<string, unknown>();
    const step = async (id: string, key: string, edits: Array<[string, string]> = [], meanwhile?: () => Promise<void>) => {
      answers.set(id, await runs(language, id, key, [...notedEdits(id, answers), ...edits], meanwhile));
    };
    await Promise.all([
      // Getting a key: the reader's own email, then each step's notes; the new account (no iMessage
      // number, part 4.4) subscribes, the checkout paid on the mock's control surface.
      (async () => {
        const email = String(sampleBody('signUp').email);
        await step('signUp', '', [[email, `reader-${language.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`]]);
        await step('verifyEmail', '');
        // The holder's own mobile number: one account per number (part 4.1).
        const holder = String(sampleBody('registerNumber').phoneNumber);
        await step('registerNumber', '', [[holder, `+1415555${2000 + Object.keys(LANGUAGES).indexOf(language)}`]]);
        await step('verifyPhoneNumber', '');
        const key = valueAt(answers.get('verifyPhoneNumber'), 'apiKey');
        await step('createSubscriptionCheckout', key);
        const paid = await fetch(`${mock.url}/__mock/checkout/complete`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ clientSecret: valueAt(answers.get('createSubscriptionCheckout'), 'clientSecret') }),
        });
        expect(paid.status).toBe(200);
        for (const id of ['previewSubscriptionChange', 'changeSubscriptionInterval', 'cancelSubscription', 'resumeSubscription']) await step(id, key);
      })(),
      // A webhook made, listed, then pinged.
      (async () => {
        const key = newKey('samples');
        for (const id of ['createWebhookSubscription', 'listWebhookSubscriptions', 'pingWebhook']) await step(id, key);
      })(),
      // The wait on a group of the reader's, while a message arrives in it (the test helper, as a
      // reader sends it from another terminal or the Try it console).
      (async () => {
        const key = newKey('samples');
        await step('listGroups', key);
        const groupId = valueAt(answers.get('listGroups'), 'id');
        const line = String(sampleBody('injectTestInboundMessage').to);
        await step('waitForEvent', key, [], async () => {
          await fetch(`${mock.url}/api/v1/test/messages/inbound`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ to: line, from: '+14155550123', body: 'In the group', groupId }),
          });
        });
        expect(valueAt(answers.get('waitForEvent'), 'groupId')).toBe(groupId);
      })(),
      // Every other sample on a new key's demo account, as it is.
      ...operations.filter((op) => !chained.has(op.id)).map((op) => step(op.id, newKey('samples'))),
    ]);
  }

  it('shows every operation a sample in each language, addressed to the local mock', () => {
    for (const [language, samples] of copied) {
      expect([...samples.keys()]).toEqual(operations.map((op) => op.id));
      for (const [id, text] of samples) {
        expect(text, `${id} in ${language}`).toContain(MOCK.host);
        expect(text, `${id} in ${language}`).not.toContain(new URL(DEPLOYMENT).host);
      }
    }
  });

  it('runs the curl, JavaScript and Python sample of every operation, each answering a 2xx it documents', async () => {
    await Promise.all((Object.keys(LANGUAGES) as Language[]).map((language) => read(language)));
    expect([...ran.keys()].sort()).toEqual(operations.flatMap((op) => Object.keys(LANGUAGES).map((l) => `${op.id} ${l}`)).sort());
    expect(errors).toEqual([]);
  }, 180_000);

  it("copies the text shown, and writes the samples for the server picked in Redoc's menu", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    const op = byId('sendMessage');
    await page.goto(`${site.origin}/${op.route}`);
    const panel = panelOf(page, op.route);
    const copy = async () => {
      await panel.locator('[data-component-name="CodeBlock/CodeBlockControls"] [data-testid="copy-button"]').click();
      return page.evaluate(() => navigator.clipboard.readText());
    };
    const atMock = await referenceSamples(op, catalog.servers[0]);
    const atDeployment = await referenceSamples(op, DEPLOYMENT);
    for (const language of Object.keys(LANGUAGES) as Language[]) {
      await pick(page, op.route, 1, language);
      const shown = await shownSample(page, op.route, LANGUAGES[language].marker);
      expect(shown).toBe(copied.get(language)!.get(op.id));
      expect(await copy(), `${language} copy`).toBe(shown);
      expect(shown).toBe(atMock[language]);

      await pick(page, op.route, 0, DEPLOYMENT);
      await expect.poll(() => panel.locator('pre[data-testid="source-code"]').innerText()).toBe(atDeployment[language]);
      expect(await copy(), `${language} copy for the deployment`).toBe(atDeployment[language]);
      await pick(page, op.route, 0, catalog.servers[0]!);
      await expect.poll(() => panel.locator('pre[data-testid="source-code"]').innerText()).toBe(atMock[language]);
      expect(await copy(), `${language} copy back on the mock`).toBe(atMock[language]);
    }
    // Each language on the scheme of the URL it names.
    expect(atDeployment.Python).toContain(`http.client.HTTPSConnection("${new URL(DEPLOYMENT).host}")`);
    expect(atMock.Python).toContain(`http.client.HTTPConnection("${MOCK.host}")`);
    expect(atDeployment.curl).toContain(`--url ${DEPLOYMENT}/api/v1/messages`);
    expect(atDeployment.JavaScript).toContain(`const url = '${DEPLOYMENT}/api/v1/messages'`);
    await context.close();
    expect(errors).toEqual([]);
  }, 120_000);
});
