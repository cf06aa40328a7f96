// Runs one planned scenario of the conformance suite against a fake deployment, for the suite's
// own tests (no nested vitest run: the scenario functions are called directly).
import { DEFAULT_MAX_SENDS, type ConformanceConfig, type Level } from '../../conformance/config.js';
import { defaultDescriptionPath, type Json } from '../../conformance/description.js';
import { createEnvironment } from '../../conformance/environment.js';
import type { ScenarioOutcome } from '../../conformance/findings.js';
import { planScenarios } from '../../conformance/plan.js';
import { runScenario } from '../../conformance/scenario.js';
import { expect } from 'vitest';
import type { Break, FakeDeployment } from './conformance-fake-deployment.js';

export const TEST_KEY = 'sk_live_CONFORMANCEtestKEY7f3a9c21d84e';

export function testConfig(fake: FakeDeployment, overrides: Partial<ConformanceConfig> = {}): ConformanceConfig {
  return {
    baseUrl: fake.url,
    apiKey: TEST_KEY,
    level: 'writes',
    to: '+14155550199',
    concurrency: 4,
    timeoutMs: 2000,
    retryBudgetMs: 2500,
    descriptionPath: defaultDescriptionPath(),
    reportDir: '/tmp/unused',
    anyKeyValid: false,
    maxSends: DEFAULT_MAX_SENDS,
    // The fake deployment answers at once; a short window keeps a missing event quick to show.
    eventWindowMs: 3000,
    ...overrides,
  };
}

export async function runScenarioById(
  fake: FakeDeployment,
  scenarioId: string,
  options: { document?: Json; level?: Level; config?: Partial<ConformanceConfig> } = {},
): Promise<ScenarioOutcome> {
  const env = createEnvironment(testConfig(fake, options.config), options.document);
  const scenario = planScenarios(env.document, options.level ?? 'writes').scenarios.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`No scenario ${scenarioId} in the plan.`);
  return runScenario(env, scenario);
}

/**
 * Runs `scenarioIds` together in one environment, as one run of the suite has them: they share
 * the account, the event stream and the run's locks (the writes flows take turns, as in a run).
 */
export async function runScenariosTogether(fake: FakeDeployment, scenarioIds: string[], options: { level?: Level; config?: Partial<ConformanceConfig> } = {}): Promise<ScenarioOutcome[]> {
  const env = createEnvironment(testConfig(fake, options.config));
  const planned = planScenarios(env.document, options.level ?? 'writes').scenarios;
  return Promise.all(
    scenarioIds.map((id) => {
      const scenario = planned.find((s) => s.id === id);
      if (!scenario) throw new Error(`No scenario ${id} in the plan.`);
      return runScenario(env, scenario);
    }),
  );
}

export function failedChecks(outcome: ScenarioOutcome): string[] {
  return [...new Set(outcome.findings.filter((f) => f.verdict === 'fail').map((f) => f.check))];
}

/**
 * Runs `scenarioId` against `fake` with `breaks` added and expects `check` to fail it, with a
 * reason a reader can act on: the other half of every check's proof (its pass is the first half).
 */
export async function expectCheckFailsWhenBroken(fake: FakeDeployment, scenarioId: string, check: string, breaks: Break): Promise<void> {
  fake.breaks.add(breaks);
  const outcome = await runScenarioById(fake, scenarioId);
  expect(outcome.verdict).toBe('fail');
  expect(failedChecks(outcome)).toContain(check);
  const failure = outcome.findings.find((f) => f.check === check && f.verdict === 'fail');
  expect(failure?.reason.length).toBeGreaterThan(10);
}
