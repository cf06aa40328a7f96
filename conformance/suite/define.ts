// Turns the planned scenarios into vitest tests: one `describe` per operation, one concurrent test
// per scenario. Requests stay bounded by the HTTP client's limiter (files run one at a time, so
// one limiter covers the run). Findings travel to the reporter in the test's `meta`, from which
// the report, the console summary and both report files are made (reporters/).
import { describe, test } from 'vitest';
import { configFromEnv } from '../config.js';
import { createEnvironment } from '../environment.js';
import type { ScenarioOutcome } from '../findings.js';
import { notSentTestName, planOptions, planScenarios, scenarioTestName } from '../plan.js';
import { runScenario, type Scenario } from '../scenario.js';
import { sliceOf } from './slices.js';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: ScenarioOutcome;
  }
}

class ConformanceFailure extends Error {
  override name = 'ConformanceFailure';
}

function failureMessage(outcome: ScenarioOutcome): string {
  const lines = outcome.findings
    .filter((f) => f.verdict === 'fail')
    .map((f) => `- [${f.check}${f.part ? `, part ${f.part}` : ''}] ${f.reason}${f.request ? `\n    request: ${f.request}` : ''}`);
  return [`${outcome.operationId}: ${outcome.title}`, ...lines, ...outcome.notes.map((n) => `note: ${n}`)].join('\n');
}

// One environment per worker process, shared by the slices (vitest.config.ts sets isolate: false
// and runs files one after another): the description is compiled once, fixtures are read once,
// and one limiter bounds every request of the run.
const SHARED = Symbol.for('numbers-api.conformance.environment');
type Shared = { env: ReturnType<typeof createEnvironment>; plan: ReturnType<typeof planScenarios> };

function shared(): Shared {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>;
  if (!holder[SHARED]) {
    const config = configFromEnv();
    const env = createEnvironment(config);
    holder[SHARED] = { env, plan: planScenarios(env.document, config.level, planOptions(config)) };
  }
  return holder[SHARED];
}

export function defineConformanceSlice(index: number, count: number): void {
  const { env, plan } = shared();
  const byOperation = new Map<string, Scenario[]>();
  for (const scenario of plan.scenarios) {
    if (sliceOf(scenario.operationId, count) !== index) continue;
    byOperation.set(scenario.operationId, [...(byOperation.get(scenario.operationId) ?? []), scenario]);
  }
  for (const notSent of plan.notSent) {
    if (sliceOf(notSent.operationId, count) !== index) continue;
    describe(notSent.operationId, () => {
      test.skip(notSentTestName(notSent), () => {});
    });
  }
  for (const [operationId, scenarios] of byOperation) {
    describe(operationId, () => {
      for (const scenario of scenarios) {
        test.concurrent(scenarioTestName(scenario), async (ctx) => {
          const outcome = await runScenario(env, scenario);
          ctx.task.meta.conformance = outcome;
          if (outcome.verdict === 'fail') {
            const error = new ConformanceFailure(failureMessage(outcome));
            error.stack = `${error.name}: ${error.message}`;
            throw error;
          }
          if (outcome.verdict === 'skip' || outcome.verdict === 'not-applicable') ctx.skip(outcome.skipReason);
        });
      }
    });
  }
}
