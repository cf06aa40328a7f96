// The docs' Workflows pages (docs/build/workflows-page.mjs), drawn from generated/workflows.arazzo.json:
// as files, every workflow has a page with its steps in the document's order, each linked to its
// operation's reference route (or the mock's control surface) and, where it cites part 3, to the
// state diagram of the machine the workflow names; what flows between steps reads "from step X's Y";
// the guides that tell these flows link to their workflow. In headless Chromium (Debian's package,
// playwright-core), served on loopback with nothing else running: "Run this workflow" on
// sendListDeliver plays it to the end against the mock in the page (its service worker), each
// request and answer shown, the id the send answered carried into the later steps, the delivery
// reached by the clock that runs during the run. No request may leave loopback.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceRoute } from '../../docs/build/contract.mjs';
import { slug } from '../../docs/build/html.mjs';
import { SITE_PAGES } from '../../docs/build/layout.mjs';
import { serveSite } from '../../scripts/serve-site.mjs';
import { stepOperation, workflowsReached } from '../../src/workflows/arazzo-runner.js';
import { launchChromium, loopbackPage, skipBrowser } from '../helpers/chromium.js';
import { readGeneratedJson } from '../../src/contract/generated-files.js';
import { listOperations, loadOpenApi, type JsonObject } from '../helpers/contract.js';
import { builtDocsSite, type BuiltSite } from '../helpers/docs-site.js';

const SKIP = skipBrowser('workflow pages browser test');
const openapi = loadOpenApi();
const arazzo = readGeneratedJson('workflows.arazzo.json');
const workflows = arazzo.workflows as JsonObject[];
const machines = openapi['x-state-machines'] as JsonObject;
const byId = new Map(listOperations(openapi).map((o) => [String(o.operation.operationId), o]));
const CITES_PART_3 = /\bParts? (?:[\d.]+(?:, | and ))*3(?![.\d])/;

let site: BuiltSite;
const read = (file: string) => readFileSync(path.join(site.dir, file), 'utf8');
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

beforeAll(async () => {
  site = await builtDocsSite();
});

describe('the workflow pages, as built', () => {
  it('lists a page per workflow, and the Workflows page links each', () => {
    const pages = SITE_PAGES.filter((p) => 'workflow' in p).map((p) => p.file);
    expect(pages).toEqual(workflows.map((w) => `workflow-${w.workflowId}.html`));
    expect(hrefs(read('workflows.html'))).toEqual(expect.arrayContaining(pages));
  });

  it.each(workflows.map((w) => [String(w.workflowId), w] as const))('%s: steps in order, each linked to its operation and, citing part 3, its state diagram', (workflowId, workflow) => {
    const html = read(`workflow-${workflowId}.html`);
    const steps = workflow.steps as JsonObject[];
    const shown = [...html.matchAll(/<li class="workflow-step" id="step-([^"]+)">([\s\S]*?)<\/li>\n(?=<li class="workflow-step"|<\/ol>)/g)];
    expect(shown.map((m) => m[1])).toEqual(steps.map((s) => s.stepId));
    for (const [i, step] of steps.entries()) {
      const links = hrefs(shown[i]![2]!);
      const target = stepOperation(step);
      if (!target) expect(links, String(step.stepId)).toContain(`workflow-${step.workflowId}.html`);
      else if (target.source === 'mockControl') expect(links, String(step.stepId)).toContain('mock.html#the-control-surface');
      else {
        const op = byId.get(target.operationId)!;
        expect(links, String(step.stepId)).toContain(referenceRoute({ tag: op.operation.tags[0], operationId: target.operationId }));
      }
      const diagrams = links.filter((l) => l.startsWith('state-machines.html#state-'));
      const wanted = CITES_PART_3.test(String(step.description)) ? ((workflow['x-state-machines'] ?? []) as string[]) : [];
      expect(diagrams, String(step.stepId)).toEqual(wanted.map((name) => `state-machines.html#state-${slug(name)}`));
    }
    // Every part-3 workflow names machines the contract has.
    for (const name of (workflow['x-state-machines'] ?? []) as string[]) expect(machines, name).toHaveProperty(name);
  });

  it('says where a carried value comes from: "from step X\'s Y (its answer\'s field …)"', () => {
    const html = read('workflow-placeCallWithReplay.html');
    expect(html).toContain('from step recentCalls&#39;s newestCallId (its answer&#39;s field 0/id)');
    expect(html).toMatch(/<td><code>callId<\/code><\/td><td>step placeCall: the answer&#39;s field id<\/td><td><a href="#step-replayCall">replayCall<\/a>/);
  });

  it('the guides that tell these flows link to their workflow, from a region generated from it', () => {
    for (const [file, workflowId] of [
      ['getting-a-key.html', 'signUpNewAccount'],
      ['retries-and-idempotency.html', 'placeCallWithReplay'],
      ['receiving-events.html', 'inboundMessageWait'],
      ['receiving-events.html', 'webhookPing'],
    ] as const) {
      const html = read(file);
      expect(hrefs(html), file).toContain(`workflow-${workflowId}.html`);
      const steps = (workflows.find((w) => w.workflowId === workflowId)!.steps as JsonObject[]).map((s) => `workflow-${workflowId}.html#step-${s.stepId}`);
      expect(hrefs(html), file).toEqual(expect.arrayContaining(steps));
    }
  });
});

describe.skipIf(SKIP)('"Run this workflow" in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let server: { origin: string; close(): Promise<void> };
  const outside: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    server = await serveSite(site.dir);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await loopbackPage(context, outside, errors);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('plays sendListDeliver to the end against the mock in the page, each request and answer shown', async () => {
    const workflowId = 'sendListDeliver';
    // As a reader comes: the landing page's Workflows link, then the workflow in the list.
    await page.goto(`${server.origin}/index.html`);
    await page.locator('a[href="workflows.html"]:visible').first().click();
    await page.waitForURL(/\/workflows\.html$/);
    await page.locator(`a[href="workflow-${workflowId}.html"]:visible`).first().click();
    await page.waitForURL(new RegExp(`/workflow-${workflowId}\\.html$`));
    const run = page.locator('[data-run-workflow] .workflow-run-box');
    await run.locator('.workflow-run-button').click();
    await expect.poll(() => run.getAttribute('data-outcome'), { timeout: 60_000 }).toMatch(/passed|failed/);
    const entries = await run.locator('.workflow-run-step').evaluateAll((items) =>
      items.map((li) => ({
        step: (li as HTMLElement).dataset.step,
        status: Number((li as HTMLElement).dataset.status),
        outcome: (li as HTMLElement).dataset.outcome,
        request: li.querySelector('.workflow-run-request')?.textContent ?? '',
        answer: li.querySelector('.workflow-run-answer')?.textContent ?? '',
      })),
    );
    await page.screenshot({ path: path.join('test-results', 'workflow-run.png'), fullPage: true });
    expect(await run.getAttribute('data-outcome'), JSON.stringify(entries, null, 1).slice(0, 3000)).toBe('passed');
    // Every step of the document sent, in order (the catch-up wait as often as it looped).
    const stepIds = (workflows.find((w) => w.workflowId === workflowId)!.steps as JsonObject[]).map((s) => s.stepId);
    expect([...new Set(entries.map((e) => e.step))]).toEqual(stepIds);
    expect(entries.every((e) => e.outcome === 'passed' && e.status >= 200)).toBe(true);
    expect(workflowsReached(arazzo, workflowId)).toEqual([workflowId]);
    // The answer of `send` names the message; `deliveredEvent` reports it delivered; the request of `send` carried the line `sendLine` answered.
    const send = entries.find((e) => e.step === 'send')!;
    const messageId = /"id": "(msg_\w+)"/.exec(send.answer)?.[1];
    expect(messageId).toBeDefined();
    const lineId = /"id": "(pn_\w+)"/.exec(entries.find((e) => e.step === 'sendLine')!.answer)?.[1];
    expect(send.request).toContain(`"fromNumberId": "${lineId}"`);
    expect(send.request).toMatch(/^POST http:\/\/127\.0\.0\.1:4010\/api\/v1\/messages\nauthorization: Bearer sk_live_…\w{4}\n/);
    expect(entries.find((e) => e.step === 'deliveredEvent')!.answer).toContain(messageId!);
    await expect(run.locator('.workflow-run-status').textContent()).resolves.toContain(`${workflowId}: passed`);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  }, 90_000);
});
