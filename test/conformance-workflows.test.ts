// `numbers-api conformance --workflows` (conformance/workflows.ts): the contract's workflows replayed
// by the one runner under the suite's safety. End to end as a user runs it (a child process through
// tsx) against the stateful mock behind the recording proxy: at each level the workflows its level
// allows pass, the rest are listed as not run with their reason, and the proxy's record (not the
// suite's own account) shows nothing beyond the level's safety table: at contract only reads; at
// writes also the workflows' declared sends, a call only with an Idempotency-Key, never an
// operation the suite never sends, and of the mock's control surface only what it announced and
// the clock the workflows move. In process: a broken rule is a finding naming the workflow, the
// step, the criterion and each value it carried with where it came from; a budget too small for a
// workflow skips it unsent; a deployment that does not announce itself gets no control request.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SENDS } from '../conformance/config.js';
import { loadDescription } from '../conformance/description.js';
import { NEVER_SENT } from '../conformance/policy.js';
import { planWorkflows, runWorkflows, WORKFLOWS_REPORT_FILE, type WorkflowsReport } from '../conformance/workflows.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { repoRoot, type JsonObject } from './helpers/contract.js';
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
  report?: WorkflowsReport;
  requests: RecordedRequest[];
}

let mock: StatefulMock;

async function runCli(args: string[]): Promise<Run> {
  const proxy: RecordingProxy = await startRecordingProxy(mock.url);
  const reportDir = mkdtempSync(path.join(reportRoot, 'run-'));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV') delete env[key];
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--import', 'tsx', 'conformance/bin.ts', '--workflows', '--base-url', proxy.url, '--report-dir', reportDir, ...args], { cwd: repoRoot, env, timeout: 180_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    let report: WorkflowsReport | undefined;
    try {
      report = JSON.parse(readFileSync(path.join(reportDir, WORKFLOWS_REPORT_FILE), 'utf8')) as WorkflowsReport;
    } catch {
      // none written: stdout and stderr say why
    }
    return { code, stdout, stderr, report, requests: [...proxy.requests] };
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
beforeAll(async () => {
  mock = await startStatefulMock();
  [contractRun, writesRun] = await Promise.all([
    runCli(['--api-key', newKey('wfcontract')]),
    runCli(['--api-key', newKey('wfwrites'), '--level', 'writes', '--to', TO]),
  ]);
}, 200_000);
afterAll(async () => {
  await mock?.close();
  rmSync(reportRoot, { recursive: true, force: true });
});

describe('conformance --workflows --level contract, against the mock behind a recording proxy', () => {
  it('passes the contract workflows and lists every other as not run, with why', () => {
    expect(contractRun.code, contractRun.stdout + contractRun.stderr).toBe(0);
    const outcomes = new Map(contractRun.report!.workflows.map((w) => [w.workflowId, w]));
    for (const id of byLevel('contract')) expect(outcomes.get(id)?.verdict, id).toBe('pass');
    for (const id of byLevel('writes')) expect(outcomes.get(id)?.reason, id).toMatch(/^needs --level writes/);
    for (const id of byLevel('never')) expect(outcomes.get(id)?.reason, id).toMatch(/^never on a deployment: \S/);
    expect(contractRun.stdout).toMatch(/NOT RUN +walletGating \[never\]: never on a deployment: A credits checkout spends money/);
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
    const passed = writesRun.report!.workflows.filter((w) => w.verdict === 'pass').map((w) => w.workflowId);
    expect(passed.sort()).toEqual([...byLevel('contract'), ...byLevel('writes')].sort());
    const declared = byLevel('writes').reduce((n, id) => n + Number((arazzo.workflows as JsonObject[]).find((w) => w.workflowId === id)!['x-conformance'].sends), 0);
    expect(writesRun.report!.sendsSpent).toBe(declared);
    expect(declared).toBeLessThanOrEqual(DEFAULT_MAX_SENDS);
    console.log(`conformance --workflows: contract runs ${byLevel('contract').length}, writes runs ${passed.length} (${declared} sends), never ${byLevel('never').length}`);
  });

  it('the wire shows nothing beyond the safety table: no never-sent operation, a call only with an Idempotency-Key, of the control surface only about and the clock', () => {
    const requests = writesRun.requests;
    const names = requests.map(operationOf);
    expect(names.filter((n) => n in NEVER_SENT)).toEqual([]);
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const writes = requests.filter((r) => r.method !== 'GET' && !r.url.startsWith('/__mock/') && operationOf(r) !== 'waitForEvent');
    expect([...new Set(writes.map(operationOf))].sort()).toEqual(['createCall', 'injectTestInboundMessage', 'sendMessage']);
    expect(writes.length).toBe(writesRun.report!.sendsSpent);
    for (const call of requests.filter((r) => operationOf(r) === 'createCall')) expect(call.headers['idempotency-key']).toMatch(/^call-after-/);
    // What reaches a person goes only to --to (an injected inbound message is to the account's own line).
    for (const r of writes.filter((w) => ['sendMessage', 'createCall'].includes(operationOf(w)))) expect((r.body as JsonObject).to).toBe(TO);
    expect([...new Set(requests.filter((r) => r.url.startsWith('/__mock/')).map(operationOf))].sort()).toEqual(['GET /__mock/about', 'POST /__mock/clock/advance']);
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

  it('plans by level: contract replays contract only; writes adds writes; never at neither', () => {
    for (const level of ['contract', 'writes'] as const) {
      const plan = planWorkflows(arazzo, level);
      expect(plan.filter((p) => p.run).map((p) => p.level).every((l) => (level === 'contract' ? l === 'contract' : l !== 'never'))).toBe(true);
      expect(plan.filter((p) => p.level === 'never').every((p) => !p.run && p.notRun)).toBe(true);
    }
  });
});
