// The coverage and the HTML report read at a glance (issue 38), shown on reports that hold what a
// platform team must see: the writes level against the mock behind a deployment stand-in that
// answers 500 where the mock answers 402 (an empty wallet refusing a number, a message, a call and
// a 10DLC fee, on an account the suite signed up there), a selection of the suite as `-t` makes
// one, the contract level against a deployment, and a run of one workflow. In headless Chromium
// at 1280 and 390 px:
// - no sideways scroll at either width;
// - a status asked for and answered with another is red, shows the status that came, and links
//   to its finding (it was a grey "not provoked" cell);
// - the undocumented statuses an operation answered are in its row, as in the console;
// - every reason is the run's own: "-t or --shard" only for a run that was a selection (not for a
//   run of workflows), and each chip's footnote leads to its cell's reason;
// - a curl that carries `$SCRATCH_KEY` says beside it what that is and how to get one.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceConfig } from '../conformance/config.js';
import { createEnvironment } from '../conformance/environment.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import { planScenarios, scenariosMatching, type Plan } from '../conformance/plan.js';
import type { CoverageCell } from '../conformance/reporters/coverage.js';
import { reportFiles, writeReports } from '../conformance/reporters/files.js';
import { buildReport, formatCoverage, formatFinding, type ConformanceReport } from '../conformance/reporters/report.js';
import { runScenario, type Environment } from '../conformance/scenario.js';
import { runWorkflowsCommand } from '../conformance/workflows.js';
import { startMock, type RunningMock } from '../src/mock/start-mock.js';
import { launchChromium, skipBrowser } from './helpers/chromium.js';
import { startBreakingProxy, type BreakingProxy } from './helpers/breaking-proxy.js';
import { repoRoot } from './helpers/contract.js';
import { testConfig } from './helpers/conformance-harness.js';

let mock: RunningMock;
let proxy: BreakingProxy;
const root = mkdtempSync(path.join(tmpdir(), 'conformance-report-html-'));
/** The writes level on the mock, through a stand-in that answers 500 for 402. */
let broken: { report: ConformanceReport; file: string };
/** The contract level, only the scenarios `-t getAccount` selects. */
let selection: { report: ConformanceReport; file: string };
/** The whole contract level against a deployment (the mock not announced). */
let deployment: { report: ConformanceReport; file: string };
/** A run of one workflow (`--workflows -t billingActivityPaging`): none of the suite's scenarios. */
let workflows: { report: ConformanceReport; file: string };

const WALLET_GATES = ['createNumber', 'sendMessage', 'createCall', 'submitTenDlcRegistration'];

async function runPlan(env: Environment, plan: Plan, scenarios = plan.scenarios): Promise<ScenarioOutcome[]> {
  // As a run has them: the writes flows one at a time (an event long poll is not a queue), after the rest.
  const flows = scenarios.filter((s) => s.level === 'writes');
  const outcomes = await Promise.all(scenarios.filter((s) => s.level !== 'writes').map((s) => runScenario(env, s)));
  outcomes.push(...(await Promise.all(flows.filter((s) => s.mockOnly).map((s) => runScenario(env, s)))));
  for (const flow of flows.filter((s) => !s.mockOnly)) outcomes.push(await runScenario(env, flow));
  return outcomes;
}

async function reportOf(name: string, overrides: Partial<ConformanceConfig>, select?: RegExp): Promise<{ report: ConformanceReport; file: string }> {
  const env = createEnvironment({ ...testConfig({ url: proxy.url } as never), anyKeyValid: true, timeoutMs: 15_000, eventWindowMs: 8_000, ...overrides });
  const options = { mock: env.config.mock !== undefined, secondKey: env.config.secondKey !== undefined };
  const plan = planScenarios(env.document, env.config.level, options);
  const outcomes = await runPlan(env, plan, select ? scenariosMatching(plan, select) : plan.scenarios);
  const report = buildReport({ document: env.document, outcomes, notSent: plan.notSent, baseUrl: proxy.url, level: env.config.level, ...options });
  const dir = path.join(root, name);
  return { report, file: writeReports(dir, report).html };
}

const cell = (report: ConformanceReport, operationId: string, status: string, code?: string): CoverageCell | undefined =>
  report.coverage.find((row) => row.operationId === operationId)?.cells.find((c) => c.status === status && c.code === code);

const allCells = (report: ConformanceReport) => report.coverage.flatMap((row) => row.cells.map((c) => ({ target: `${row.operationId} ${c.status}${c.code ? ` ${c.code}` : ''}`, cell: c })));

beforeAll(async () => {
  mock = await startMock({ port: 0 });
  await mock.ready;
  proxy = await startBreakingProxy(mock.url);
  proxy.rules.push({ on: 'POST /api/v1/.*', answer: (a) => (a.status === 402 ? { ...a, status: 500, body: { error: 'Internal error' } } : undefined) });
  broken = await reportOf('broken', { level: 'writes', mock: 'any' });
  selection = await reportOf('selection', { level: 'contract', mock: 'any', to: undefined }, /getAccount/);
  deployment = await reportOf('deployment', { level: 'contract', to: undefined });
  const reportDir = path.join(root, 'workflows');
  const env = createEnvironment({ ...testConfig({ url: proxy.url } as never), level: 'contract', to: undefined, reportDir });
  await runWorkflowsCommand(env.config, env.document, () => undefined, { only: ['billingActivityPaging'], isMock: true });
  const files = reportFiles(reportDir);
  workflows = { report: JSON.parse(readFileSync(files.json, 'utf8')) as ConformanceReport, file: files.html };
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the coverage says what came and why, from the run', () => {
  it('a status asked for and answered with another is answered-otherwise, with the status that came, for the status and its codes', () => {
    for (const operationId of WALLET_GATES) {
      expect(cell(broken.report, operationId, '402'), operationId).toMatchObject({ state: 'answered-otherwise', came: ['500'], reason: expect.stringMatching(/^asked for by ".*", and 500 came instead \(see its finding\)$/) });
      // Its code cell once said "its scenario did not run here (-t or --shard)".
      expect(cell(broken.report, operationId, '402', 'insufficient_credit'), operationId).toMatchObject({ state: 'answered-otherwise', came: ['500'] });
      expect(broken.report.coverage.find((row) => row.operationId === operationId)?.undocumentedSeen).toEqual(['500']);
    }
    expect(broken.report.coverageSummary).toMatchObject({ statuses: 133, answeredOtherwise: 4, failed: 0 });
    expect(broken.report.coverageSummary.provoked).toBe(133 - 4 - allCells(broken.report).filter(({ cell: c }) => c.code === undefined && c.state === 'not-provoked').length);
    const text = formatCoverage(broken.report);
    expect(text).toMatch(/^createNumber +POST \/api\/v1\/numbers .* 402\(got 500\) /m);
    expect(text).toMatch(/^Asked for, and another status came \(4\):$/m);
    expect(text).toMatch(/; 4 asked for and answered with another status\)$/m);
  });

  it('says "-t or --shard" only of a scenario this run planned and left out', () => {
    for (const run of [broken, deployment, workflows]) expect(allCells(run.report).filter(({ cell: c }) => /-t or --shard/.test(c.reason ?? '')).map(({ target }) => target)).toEqual([]);
    // A run of workflows ran none of the suite's scenarios: said so, with the scenario that would provoke it.
    expect(cell(workflows.report, 'getUsage', '200')?.reason).toMatch(/^this run ran its workflow scenarios, none of the suite's; the suite's ".*" provokes it$/);
    expect(cell(selection.report, 'getAccount', '200')?.state).toBe('passed');
    expect(cell(selection.report, 'getUsage', '200')?.reason).toMatch(/^its scenario ".*" was left out of this run \(-t or --shard\)$/);
    // What this run could never have sent is said so, not blamed on the selection.
    expect(cell(selection.report, 'signUp', '200')?.reason).toMatch(/^provoked at --level writes/);
    expect(cell(deployment.report, 'deleteAccount', '200')?.reason).toMatch(/^on the package's mock only: /);
  });

  it("a curl that carries $SCRATCH_KEY says what it is and how to get one, in the console too, and offers the --rerun that signs one up again", () => {
    const group = broken.report.findings.find((g) => g.operationId === 'createNumber' && g.status === 500)!;
    expect(group.example.curl).toContain('$SCRATCH_KEY');
    const lines = formatFinding(group);
    const curl = lines.findIndex((l) => l.includes('$SCRATCH_KEY'));
    expect(lines[curl + 1]).toMatch(/^ {4}\(\$SCRATCH_KEY is the key of an account the suite signed up on the package's mock for this check; .* "A new account, step by step" in docs\/guides\/getting-a-key\.md .* export \$SCRATCH_KEY=<the apiKey that verify-number answered>\.\)$/);
    expect(lines[curl + 2]).toBe(`    rerun: npm run conformance -- --rerun ${group.id} --level writes   # installed: npx numbers-api conformance --rerun ${group.id} --level writes`);
    // The guide the note sends a reader to holds that section.
    const guide = path.join(repoRoot, 'docs/guides/getting-a-key.md');
    expect(existsSync(guide) && readFileSync(guide, 'utf8')).toMatch(/^## A new account, step by step$/m);
  });
});

describe.skipIf(skipBrowser('the conformance HTML report at a glance'))('the HTML report in headless Chromium', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, width: number, run: (page: Page) => Promise<void>): Promise<void> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.setDefaultTimeout(5_000);
    try {
      await page.goto(pathToFileURL(file).href);
      await run(page);
    } finally {
      await page.close();
    }
  }

  it.each([1280, 390])('no sideways scroll at %i px, whatever the report holds', async (width) => {
    for (const run of [broken, selection, deployment, workflows]) {
      await open(run.file, width, async (page) => {
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
        expect(scrollWidth, run.file).toBeLessThanOrEqual(innerWidth);
        expect(innerWidth).toBe(width);
      });
    }
  });

  it.each([1280, 390])('at %i px: a status answered with another is a red chip with the status that came, linking to its finding; the undocumented 500 is in the row', async (width) => {
    await open(broken.file, width, async (page) => {
      for (const operationId of WALLET_GATES) {
        const chip = page.locator(`#coverage-${operationId} [data-target="${operationId} 402"]`);
        await expect(chip.getAttribute('data-state')).resolves.toBe('answered-otherwise');
        await expect(chip.innerText()).resolves.toBe('402 → 500');
        await expect(chip.evaluate((el) => getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(207, 34, 46)');
        const box = (await chip.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        const finding = broken.report.findings.find((g) => g.operationId === operationId && g.status === 500)!;
        await expect(chip.getAttribute('href')).resolves.toBe(`#finding-${finding.id}`);
        const undocumented = page.locator(`#coverage-${operationId} [data-undocumented="500"]`);
        await expect(undocumented.innerText()).resolves.toBe('500 not documented');
        await expect(undocumented.isVisible()).resolves.toBe(true);
        await expect(page.locator(`#coverage-${operationId}`).getAttribute('class')).resolves.toBe('op problem');
      }
      await expect(page.locator('[data-tile="asked for, another status came"] b').innerText()).resolves.toBe('4');
      await expect(page.locator('[data-tile="undocumented statuses seen"] b').innerText()).resolves.toBe('4');
      await expect(page.locator('#attention + ul li', { hasText: 'createNumber' }).innerText()).resolves.toBe('createNumber: asked for 402, and 500 came; answered 500, which it does not document');
    });
  });

  it("every chip's state and reason are its cell's: a not-provoked chip's footnote leads to its reason", async () => {
    for (const run of [broken, selection, deployment, workflows]) {
      await open(run.file, 1280, async (page) => {
        const chips = await page.locator('.chip[data-target]').evaluateAll((els) =>
          els.map((el) => {
            const note = el.querySelector('sup a')?.getAttribute('href');
            return { target: el.getAttribute('data-target')!, state: el.getAttribute('data-state')!, reason: note ? (document.querySelector(note) as HTMLElement | null)?.innerText : undefined };
          }),
        );
        const cells = allCells(run.report);
        expect(chips.map((c) => c.target)).toEqual(cells.map((c) => c.target));
        for (const [i, { cell: c }] of cells.entries()) {
          expect(chips[i]!.state, chips[i]!.target).toBe(c.state);
          if (c.state === 'not-provoked') expect(chips[i]!.reason, chips[i]!.target).toBe(`${c.reason}${c.unlock ? ` (unlock: ${c.unlock})` : ''}`);
        }
      });
    }
  });

  it('a curl with $SCRATCH_KEY has its explanation beside it, and the rerun that signs one up again', async () => {
    await open(broken.file, 390, async (page) => {
      const group = broken.report.findings.find((g) => g.operationId === 'createNumber' && g.status === 500)!;
      const finding = page.locator(`#finding-${group.id}`);
      await expect(finding.locator('pre').first().innerText()).resolves.toContain('Authorization: Bearer $SCRATCH_KEY');
      const note = finding.locator('pre + p.note');
      await expect(note.isVisible()).resolves.toBe(true);
      await expect(note.innerText()).resolves.toMatch(/^\$SCRATCH_KEY is the key of an account the suite signed up on the package's mock for this check; the suite never keeps it\. Its rerun line runs the check again on an account it signs up the same way\. To send the curl yourself, sign up an account/);
      await expect(finding.innerText()).resolves.toMatch(new RegExp(`Judge it again: npm run conformance -- --rerun ${group.id} --level writes --report-dir `));
    });
  });
});
