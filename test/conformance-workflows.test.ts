// `numbers-api conformance --workflows` (conformance/workflows.ts): the contract's workflows replayed
// by the one runner under the suite's safety. End to end as a user runs it (a child process through
// tsx) against the stateful mock behind the recording proxy: at each level the workflows its level
// allows pass, the rest are listed as not run with their reason, and the proxy's record (not the
// suite's own account) shows nothing beyond the level's safety table: at contract only reads; at
// writes also the workflows' declared sends, a call only with an Idempotency-Key, never an
// operation the suite never sends, and of the mock's control surface only what it announced and
// the clock the workflows move. The results are the suite's own reports: behind a breaking proxy
// (part 4.4's paging broken), `-t billingActivityPaging` runs that workflow alone and its failing
// step is in junit.xml, conformance-report.json and the HTML's findings. In process: a broken rule is a finding naming the workflow, the
// step, the criterion and each value it carried with where it came from; a budget too small for a
// workflow skips it unsent; a deployment that does not announce itself gets no control request.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SENDS } from '../conformance/config.js';
import { UsageError } from '../src/cli/usage-error.js';
import { listOperations, loadDescription } from '../conformance/description.js';
import { neverSentReason } from '../conformance/policy.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import type { ConformanceReport } from '../conformance/reporters/report.js';
import { planWorkflows, runWorkflows, workflowsMatching } from '../conformance/workflows.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { repoRoot, type JsonObject } from './helpers/contract.js';
import { startBreakingProxy, type BreakingProxy } from './helpers/breaking-proxy.js';
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from './helpers/conformance-recording-proxy.js';
import { startRewritingProxy, type LoopbackServer } from './helpers/respect.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const arazzo = readGeneratedJson('workflows.arazzo.json');
const document = loadDescription();
const TO = '+14155550123';
const levelOf = new Map((arazzo.workflows as JsonObject[]).map((w) => [String(w.workflowId), String(w['x-conformance'].level)]));
const byLevel = (level: string) => [...levelOf].filter(([, l]) => l === level).map(([id]) => id);
const reportRoot = mkdtempSync(path.join(os.tmpdir(), 'conformance-workflows-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The suite's own reports, as every run writes them. */
  report?: ConformanceReport;
  junit: string;
  html: string;
  /** Each workflow's scenario, by workflow id. */
  workflows: Map<string, ScenarioOutcome>;
  requests: RecordedRequest[];
}

let mock: StatefulMock;
let breaking: BreakingProxy;

async function runCli(args: string[], upstream = mock.url): Promise<Run> {
  const proxy: RecordingProxy = await startRecordingProxy(upstream);
  const reportDir = mkdtempSync(path.join(reportRoot, 'run-'));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV') delete env[key];
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--import', 'tsx', 'conformance/bin.ts', '--workflows', '--base-url', proxy.url, '--report-dir', reportDir, ...args], { cwd: repoRoot, env, timeout: 180_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    const read = (file: string): string => {
      try {
        return readFileSync(path.join(reportDir, file), 'utf8');
      } catch {
        return ''; // none written: stdout and stderr say why
      }
    };
    const json = read('conformance-report.json');
    const report = json ? (JSON.parse(json) as ConformanceReport) : undefined;
    const scenarios = (report?.operations ?? []).flatMap((o) => o.scenarios);
    const workflows = new Map(scenarios.filter((s) => s.scenarioId.startsWith('workflow ')).map((s) => [s.scenarioId.slice('workflow '.length), s]));
    return { code, stdout, stderr, report, junit: read('junit.xml'), html: read('conformance-report.html'), workflows, requests: [...proxy.requests] };
  } finally {
    await proxy.close();
  }
}

/** The service operation a recorded request names (by method and path), or the mock control path. */
function operationOf(request: RecordedRequest): string {
  const pathname = new URL(request.url, 'http://x').pathname;
  if (pathname.startsWith('/__mock/')) return `${request.method} ${pathname}`;
  for (const [template, item] of Object.entries(document.paths as Record<string, JsonObject>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = item[request.method.toLowerCase()];
    if (op && pattern.test(pathname)) return String(op.operationId);
  }
  return `${request.method} ${pathname}`;
}

let contractRun: Run;
let writesRun: Run;
let brokenRun: Run;
beforeAll(async () => {
  mock = await startStatefulMock();
  breaking = await startBreakingProxy(mock.url);
  // Part 4.4 broken: the page after `starting_after` holds an item newer than the cursor.
  breaking.rules.push({
    on: 'GET /api/v1/billing/activity',
    answer: (answer, request) => {
      const body = answer.body as { items?: JsonObject[] } | undefined;
      if (!request.url.includes('starting_after=') || !body?.items?.length) return undefined;
      return { ...answer, body: { ...body, items: [{ ...body.items[0], occurredAt: '2999-01-01T00:00:00.000Z' }, ...body.items.slice(1)] } };
    },
  });
  [contractRun, writesRun, brokenRun] = await Promise.all([
    runCli(['--api-key', newKey('wfcontract')]),
    runCli(['--api-key', newKey('wfwrites'), '--level', 'writes', '--to', TO]),
    runCli(['--api-key', newKey('wfbrokenpaging'), '-t', 'billingActivityPaging'], breaking.url),
  ]);
}, 200_000);
afterAll(async () => {
  await breaking?.close();
  await mock?.close();
  rmSync(reportRoot, { recursive: true, force: true });
});

describe('conformance --workflows --level contract, against the mock behind a recording proxy', () => {
  it('passes the contract workflows and lists every other as not run, with why', () => {
    expect(contractRun.code, contractRun.stdout + contractRun.stderr).toBe(0);
    const outcomes = contractRun.workflows;
    expect([...outcomes.keys()].sort()).toEqual([...levelOf.keys()].sort());
    for (const id of byLevel('contract')) expect(outcomes.get(id)?.verdict, id).toBe('pass');
    for (const id of byLevel('writes')) expect(outcomes.get(id)?.skipReason, id).toMatch(new RegExp(`^workflow ${id} not run: needs --level writes`));
    for (const id of byLevel('never')) expect(outcomes.get(id)?.skipReason, id).toMatch(new RegExp(`^workflow ${id} not run: never on a deployment: \\S`));
    expect(contractRun.stdout).toMatch(/Not applicable \(1 scenarios\): workflow walletGating not run: never on a deployment: A credits checkout spends money/);
    // Where the reports list what was not run: JUnit's skipped cases, with the reason.
    expect(contractRun.junit).toMatch(/name="\w+: workflow walletGating: [^"]*"[^>]*>\s*(<properties>[\s\S]*?<\/properties>\s*)?<skipped message="not applicable: workflow walletGating not run: never on a deployment/);
    // Its steps are its checks, in order, each with its outcome and status.
    expect(outcomes.get('billingActivityPaging')?.steps?.map((s) => `${s.stepId} ${s.outcome} ${s.status}`)).toEqual(['firstPage passed 200', 'nextPage passed 200', 'clampedPage passed 200', 'paymentsOnly passed 200']);
  });

  it('sent only reads: GETs and the POSTs that only read, and the one announcement read of the mock', () => {
    const sent = contractRun.requests.map((r) => `${r.method} ${operationOf(r)}`);
    expect(sent.filter((s) => !s.startsWith('GET ') && s !== 'POST waitForEvent')).toEqual([]);
    expect(sent.filter((s) => s.includes('/__mock/'))).toEqual(sent.filter((s) => s === 'GET GET /__mock/about'));
    expect(sent).toContain('GET listBillingActivity');
  });
});

describe('conformance --workflows --level writes', () => {
  it('passes the contract and writes workflows, within --max-sends', () => {
    expect(writesRun.code, writesRun.stdout + writesRun.stderr).toBe(0);
    const passed = [...writesRun.workflows].filter(([, w]) => w.verdict === 'pass').map(([id]) => id);
    expect(passed.sort()).toEqual([...byLevel('contract'), ...byLevel('writes')].sort());
    const declared = byLevel('writes').reduce((n, id) => n + Number((arazzo.workflows as JsonObject[]).find((w) => w.workflowId === id)!['x-conformance'].sends), 0);
    expect(writesRun.report!.sends.total).toBe(declared);
    expect(declared).toBeLessThanOrEqual(DEFAULT_MAX_SENDS);
    console.log(`conformance --workflows: contract runs ${byLevel('contract').length}, writes runs ${passed.length} (${declared} sends), never ${byLevel('never').length}`);
  });

  it('the wire shows nothing beyond the safety table: no never-sent operation, a call only with an Idempotency-Key, of the control surface only about and the clock', () => {
    const requests = writesRun.requests;
    const names = requests.map(operationOf);
    const neverSent = new Set(listOperations(loadDescription()).filter((op) => neverSentReason(op)).map((op) => op.operationId));
    expect(neverSent.size).toBeGreaterThan(0);
    expect(names.filter((n) => neverSent.has(n))).toEqual([]);
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const writes = requests.filter((r) => r.method !== 'GET' && !r.url.startsWith('/__mock/') && operationOf(r) !== 'waitForEvent');
    expect([...new Set(writes.map(operationOf))].sort()).toEqual(['createCall', 'injectTestInboundMessage', 'sendMessage']);
    expect(writes.length).toBe(writesRun.report!.sends.total);
    for (const call of requests.filter((r) => operationOf(r) === 'createCall')) expect(call.headers['idempotency-key']).toMatch(/^call-after-/);
    // What reaches a person goes only to --to (an injected inbound message is to the account's own line).
    for (const r of writes.filter((w) => ['sendMessage', 'createCall'].includes(operationOf(w)))) expect((r.body as JsonObject).to).toBe(TO);
    expect([...new Set(requests.filter((r) => r.url.startsWith('/__mock/')).map(operationOf))].sort()).toEqual(['GET /__mock/about', 'POST /__mock/clock/advance']);
  });
});

describe('conformance --workflows -t billingActivityPaging, against a deployment that breaks part 4.4', () => {
  const failing = () => brokenRun.workflows.get('billingActivityPaging')!;

  it('runs only that workflow, and fails', () => {
    expect(brokenRun.code, brokenRun.stdout + brokenRun.stderr).toBe(1);
    expect([...brokenRun.workflows.keys()]).toEqual(['billingActivityPaging']);
    expect(Object.values(brokenRun.report!.totals).reduce((a, b) => a + b, 0)).toBe(1);
    // On the wire, of the service only what that workflow and the probe read.
    const sent = brokenRun.requests.map(operationOf).filter((name) => !name.includes('/__mock/'));
    expect(sent.filter((name) => name !== 'listBillingActivity' && name !== 'getAccount')).toEqual([]);
  });

  it('conformance-report.json: the workflow a failing scenario, its step a workflow-step finding naming the workflow, the step and the value it carried', () => {
    const scenario = failing();
    expect(scenario).toMatchObject({ verdict: 'fail', check: 'workflow', operationId: 'listBillingActivity' });
    expect(scenario.steps?.map((s) => `${s.stepId} ${s.outcome}`)).toEqual(['firstPage passed', 'nextPage failed', 'clampedPage skipped', 'paymentsOnly skipped']);
    expect(scenario.steps?.[2]?.notes).toEqual(['not run: a step before it failed']);
    const [finding] = scenario.findings;
    expect(finding).toMatchObject({ check: 'workflow-step', part: '4.4', verdict: 'fail', operationId: 'listBillingActivity', status: 200 });
    expect(finding!.reason).toMatch(/^workflow billingActivityPaging, step nextPage \(listBillingActivity \(GET \/api\/v1\/billing\/activity\)\): not met: \$response\.body#\/items\/0\/occurredAt < \$steps\.firstPage\.outputs\.cursor\. It carried starting_after = "[^"]+", from step firstPage's cursor/);
    // Grouped as every finding of the suite, with its request for --rerun.
    const group = brokenRun.report!.findings.find((g) => g.check === 'workflow-step');
    expect(group).toMatchObject({ verdict: 'fail', operationId: 'listBillingActivity', part: '4.4' });
    expect(group!.example.sent).toMatchObject({ method: 'GET', target: expect.stringMatching(/^\/api\/v1\/billing\/activity\?.*starting_after=/) });
  });

  it('junit.xml: a failure naming the workflow and the step, its steps as properties', () => {
    const testcase = /<testcase classname="workflow" name="listBillingActivity: workflow billingActivityPaging: [^"]*"[\s\S]*?<\/testcase>/.exec(brokenRun.junit)?.[0];
    expect(testcase, brokenRun.junit).toBeDefined();
    expect(testcase).toMatch(/<failure message="workflow billingActivityPaging, step nextPage \(listBillingActivity/);
    expect(testcase).toMatch(/<property name="step" value="nextPage: failed, listBillingActivity \(GET \/api\/v1\/billing\/activity\) → 200/);
    expect(brokenRun.junit).toMatch(/<testsuites [^>]*failures="1"/);
  });

  it('the HTML report: the finding under its rule, and the workflow among the scenarios with its steps', () => {
    const section = (id: string) => brokenRun.html.split(`<h2 id="${id}">`)[1]?.split('<h2 ')[0] ?? '';
    const findings = section('findings');
    expect(findings).toMatch(/^[^]*?<h3>workflow-step <span class="muted">\(part 4\.4\)<\/span><\/h3>/);
    expect(findings).toMatch(/<details class="fail"[^>]*><summary>FAIL workflow billingActivityPaging, step nextPage/);
    const scenarios = section('scenarios');
    expect(scenarios).toMatch(/<tr><td>listBillingActivity<\/td><td>fail<\/td><td>workflow billingActivityPaging: /);
    expect(scenarios).toMatch(/<li class="step failed">nextPage: failed, /);
  });
});

describe('findings, budget and deployments, in process', () => {
  const config = (key: string, baseUrl: string, maxSends = DEFAULT_MAX_SENDS) => ({ baseUrl, apiKey: key, level: 'writes' as const, to: TO, concurrency: 1, timeoutMs: 30_000, retryBudgetMs: 10_000, maxSends });

  it('a replay answered 201 (part 7.2): a finding that names the workflow, the step, the criterion and the key it carried, with where from', async () => {
    const proxy: LoopbackServer = await startRewritingProxy(mock.url, (x) => {
      if (x.method === 'POST' && x.pathname === '/api/v1/calls' && x.status === 200) x.status = 201;
    });
    try {
      const report = await runWorkflows({ config: config(newKey('wfbroken'), proxy.url), document, only: ['placeCallWithReplay'], isMock: true });
      const [outcome] = report.workflows;
      expect(outcome!.verdict).toBe('fail');
      expect(outcome!.findings).toHaveLength(1);
      const [finding] = outcome!.findings;
      expect(finding).toMatchObject({ check: 'workflow-step', part: '7.2', verdict: 'fail', operationId: 'createCall', status: 201 });
      expect(finding!.reason).toMatch(/^workflow placeCallWithReplay, step replayCall \(createCall \(POST \/api\/v1\/calls\)\): not met: \$statusCode == 200\. It carried /);
      expect(finding!.reason).toMatch(/Idempotency-Key = "call-after-call_\w+", from step recentCalls's newestCallId \(its answer's field 0\/id\)/);
      expect(finding!.reason).toMatch(/body\.fromNumberId = "pn_\w+", from step callLine's fromNumberId \(its answer's field 0\/id\)/);
      expect(finding!.request).toMatch(/^POST \/api\/v1\/calls \{/);
      // As data too (issue 29's findings): the request for its curl and --rerun, the answer, what was expected and what came.
      expect(finding!.sent).toMatchObject({ method: 'POST', target: '/api/v1/calls', auth: 'valid', headers: { 'idempotency-key': expect.stringMatching(/^call-after-call_/) } });
      expect(finding!.answer?.status).toBe(201);
      expect(finding!.expected).toEqual(['$statusCode == 200', '$response.body#/id == $steps.placeCall.outputs.callId']);
      expect(finding!.actual).toEqual({ status: 201, notMet: ['not met: $statusCode == 200'] });
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('a budget too small for a workflow skips it, unsent; a deployment that does not announce itself gets no control request', async () => {
    const proxy = await startRecordingProxy(mock.url);
    try {
      const report = await runWorkflows({ config: config(newKey('wfbudget'), proxy.url, 1), document, only: ['placeCallWithReplay', 'sendListDeliver'], isMock: false });
      const call = report.workflows.find((w) => w.workflowId === 'placeCallWithReplay')!;
      expect(call.verdict).toBe('skip');
      expect(call.reason).toMatch(/its 2 sends do not fit in what is left of --max-sends 1/);
      expect(proxy.requests.filter((r) => operationOf(r) === 'createCall')).toEqual([]);
      expect(proxy.requests.filter((r) => r.url.startsWith('/__mock/'))).toEqual([]);
      expect(report.workflows.find((w) => w.workflowId === 'sendListDeliver')!.steps.find((s) => s.stepId === 'letDeliveriesHappen')?.outcome).toBe('skipped');
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('-t selects workflows by id; a pattern that selects none is a usage error naming them', () => {
    expect(workflowsMatching('^placeCall', arazzo)).toEqual(['placeCallWithReplay']);
    expect(() => workflowsMatching('getUsage', arazzo)).toThrow(/-t "getUsage" matches no workflow\. With --workflows, -t selects workflows by id: beginRegistration, /);
    expect(() => workflowsMatching('(', arazzo)).toThrow(UsageError);
  });

  it('plans by level: contract replays contract only; writes adds writes; never at neither', () => {
    for (const level of ['contract', 'writes'] as const) {
      const plan = planWorkflows(arazzo, level);
      expect(plan.filter((p) => p.run).map((p) => p.level).every((l) => (level === 'contract' ? l === 'contract' : l !== 'never'))).toBe(true);
      expect(plan.filter((p) => p.level === 'never').every((p) => !p.run && p.notRun)).toBe(true);
    }
  });
});
