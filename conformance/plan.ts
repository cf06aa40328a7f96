// The whole suite, derived from the description at run time: for every operation the generic
// scenarios (reads, 401s, negative data, unknown ids, missing headers) and the named checks of the
// interface specification; minus the operations the safety policy never sends.
import type { Level } from './config.js';
import { listOperations, type Json } from './description.js';
import { neverSentReason } from './policy.js';
import type { Scenario } from './scenario.js';
import { authRequiredScenarios, signupNeedsNoKeyScenarios } from './scenarios/authentication.js';
import { billingActivityScenarios } from './scenarios/billing-activity.js';
import { callDurationScenarios } from './scenarios/call-duration.js';
import { eventsWaitScenarios } from './scenarios/events-wait.js';
import { historyListScenarios } from './scenarios/history-lists.js';
import { keyPreviewScenarios } from './scenarios/key-previews.js';
import { missingHeaderScenarios, negativeDataScenarios } from './scenarios/negative.js';
import { negativeQueryScenarios } from './scenarios/negative-query.js';
import { readScenarios, unknownResourceScenarios } from './scenarios/reads.js';
import { usageScenarios } from './scenarios/usage.js';
import { writeScenarios } from './scenarios/writes.js';
import { sliceFile, sliceOf } from './suite/slices.js';

export interface NotSent {
  operationId: string;
  method: string;
  path: string;
  reason: string;
}

export interface Plan {
  scenarios: Scenario[];
  notSent: NotSent[];
}

export function planScenarios(document: Json, level: Level): Plan {
  const operations = listOperations(document);
  const notSent: NotSent[] = [];
  const sendable = operations.filter((op) => {
    const reason = neverSentReason(op.operationId, op.method);
    if (reason) notSent.push({ operationId: op.operationId, method: op.method, path: op.path, reason });
    return !reason;
  });
  const scenarios: Scenario[] = [];
  for (const op of sendable) {
    scenarios.push(
      ...readScenarios(op),
      ...authRequiredScenarios(op),
      ...signupNeedsNoKeyScenarios(op),
      ...negativeDataScenarios(op),
      ...negativeQueryScenarios(document, op),
      ...unknownResourceScenarios(op, true),
      ...missingHeaderScenarios(op, true),
    );
  }
  scenarios.push(
    ...usageScenarios(sendable),
    ...billingActivityScenarios(sendable),
    ...historyListScenarios(sendable),
    ...eventsWaitScenarios(sendable),
    ...keyPreviewScenarios(sendable),
    ...callDurationScenarios(sendable),
    ...writeScenarios(sendable),
  );
  return { scenarios: scenarios.filter((s) => level === 'writes' || s.level === 'contract'), notSent };
}

/** The vitest test name of a scenario (define.ts): the check in brackets lets `-t` select by check. */
export function scenarioTestName(scenario: Scenario): string {
  return `${scenario.title} [${scenario.check}]`;
}

export function notSentTestName(notSent: NotSent): string {
  return `never sent: ${notSent.reason}`;
}

/**
 * The scenarios a `-t` pattern selects, as vitest matches it: against the full name, which is
 * the slice file, the operation (the describe block) and the test name, joined by spaces.
 */
export function scenariosMatching(plan: Plan, pattern: RegExp): Scenario[] {
  return plan.scenarios.filter((s) => pattern.test(`${sliceFile(sliceOf(s.operationId))} ${s.operationId} ${scenarioTestName(s)}`));
}
