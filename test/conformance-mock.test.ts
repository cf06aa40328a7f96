// CI's run of the contract level against the package's own mock, in both its modes: the stateful
// mock under `--strict-keys` (a seed names the suite's key, so the unknown-key 401 checks run
// without `--any-key-valid`), and the example server (`--stateless`, which accepts any key).
// Every operation the safety policy allows must be exercised, and nothing may fail (issues 6, 11).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvironment } from '../conformance/environment.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import { planScenarios } from '../conformance/plan.js';
import { buildReport, type ConformanceReport } from '../conformance/reporters/report.js';
import { runScenario } from '../conformance/scenario.js';
import { startMock, type MockOptions, type RunningMock } from '../src/mock/start-mock.js';
import { testConfig, TEST_KEY } from './helpers/conformance-harness.js';

const MODES: Array<{ mode: string; level: 'contract' | 'writes'; options: MockOptions; anyKeyValid: boolean; rules: string[] }> = [
  {
    mode: 'writes level, stateful, --strict-keys',
    level: 'writes',
    options: { strictKeys: true, seed: { accounts: [{ keys: [TEST_KEY] }] } },
    anyKeyValid: false,
    // The flows that judge what happens across requests (issue 14), on a mock that keeps state.
    rules: [
      'auth-required',
      'message-send-then-list',
      'call-idempotent-replay',
      'event-message-received',
      'event-wait-no-match-408',
      'account-cap-read-your-write',
    ],
  },
  {
    level: 'contract',
    mode: 'stateful, --strict-keys',
    options: { strictKeys: true, seed: { accounts: [{ keys: [TEST_KEY] }] } },
    anyKeyValid: false,
    rules: ['usage-days-fallback', 'billing-activity-limit', 'billing-activity-order', 'unknown-resource-404', 'auth-required'],
  },
  {
    mode: 'stateless',
    level: 'contract',
    options: { stateless: true },
    anyKeyValid: true,
    rules: ['usage-days-fallback', 'billing-activity-limit', 'billing-activity-order', 'unknown-resource-404'],
  },
];

describe.each(MODES)('the $level level against the mock ($mode)', ({ level, options, anyKeyValid, rules }) => {
  let mock: RunningMock;
  let outcomes: ScenarioOutcome[];
  let report: ConformanceReport;

  beforeAll(async () => {
    mock = await startMock({ port: 0, ...options });
    await mock.ready;
    const env = createEnvironment({
      ...testConfig({ url: mock.url } as never),
      level,
      to: level === 'writes' ? testConfig({ url: mock.url } as never).to : undefined,
      anyKeyValid,
      timeoutMs: 20_000,
      eventWindowMs: 20_000,
    });
    const plan = planScenarios(env.document, level);
    // The writes flows run one at a time (an event long poll is not a queue), after the rest.
    const flows = plan.scenarios.filter((s) => s.level === 'writes');
    outcomes = await Promise.all(plan.scenarios.filter((s) => s.level !== 'writes').map((s) => runScenario(env, s)));
    for (const flow of flows) outcomes.push(await runScenario(env, flow));
    report = buildReport({ document: env.document, outcomes, notSent: plan.notSent, baseUrl: mock.url, level, maxSends: level === 'writes' ? env.config.maxSends : undefined });
  }, 180_000);

  afterAll(async () => {
    await mock?.close();
  });

  it('exercises every documented operation except those never sent by design', () => {
    const missing = report.coverage.filter((c) => !c.exercised && !c.notSentReason).map((c) => c.operationId);
    expect(missing).toEqual([]);
    expect(report.coverage.filter((c) => c.notSentReason).length).toBe(5);
  });

  it('fails nothing', () => {
    const failed = outcomes
      .filter((o) => o.verdict === 'fail')
      .map((o) => `${o.scenarioId}: ${o.findings.filter((f) => f.verdict === 'fail').map((f) => `[${f.check}] ${f.reason} (${f.request})`).join('; ')}`);
    expect(failed).toEqual([]);
  });

  // These once failed on a mock that served a fixed example whatever the request said.
  it('keeps the rules a fixed example cannot show: their checks pass, none is skipped', () => {
    for (const check of rules) {
      const findings = outcomes.flatMap((o) => o.findings).filter((f) => f.check === check);
      expect(findings.length, check).toBeGreaterThan(0);
      expect(findings.filter((f) => f.verdict !== 'pass' && f.verdict !== 'advisory').map((f) => `${check} ${f.verdict}: ${f.reason}`)).toEqual([]);
      expect(findings.some((f) => f.verdict === 'pass'), check).toBe(true);
    }
  });

  it('sees every answer documented: no undocumented status from the mock', () => {
    const undocumented = report.coverage.filter((c) => c.undocumentedSeen.length).map((c) => `${c.operationId}: ${c.undocumentedSeen.join(',')}`);
    expect(undocumented).toEqual([]);
  });

  it('never sent anything with the key to an operation the policy excludes', () => {
    const excluded = new Set(report.coverage.filter((c) => c.notSentReason).map((c) => c.operationId));
    const sent = outcomes.flatMap((o) => o.exchanges).filter((e) => excluded.has(e.operationId));
    expect(sent).toEqual([]);
    expect(JSON.stringify(outcomes)).not.toContain(TEST_KEY);
  });
});
