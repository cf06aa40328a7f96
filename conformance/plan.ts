// The whole suite, derived from the description at run time: for every operation the generic
// scenarios (reads, 401s, negative data, unknown ids, missing headers) and the named checks of the
// interface specification; minus the operations the safety policy never sends.
import type { ConformanceConfig, Level } from './config.js';
import { listOperations, type Json } from './description.js';
import { neverSentReason } from './policy.js';
import { withId, type Scenario, type ScenarioDraft } from './scenario.js';
import { authRequiredScenarios, signupNeedsNoKeyScenarios } from './scenarios/authentication.js';
import { billingActivityScenarios } from './scenarios/billing-activity.js';
import { callDurationScenarios } from './scenarios/call-duration.js';
import { eventsWaitScenarios } from './scenarios/events-wait.js';
import { historyListScenarios } from './scenarios/history-lists.js';
import { fixtureAccountScenarios } from './scenarios/fixture-accounts.js';
import { isolationScenarios } from './scenarios/isolation.js';
import { mockJourneyScenarios } from './scenarios/mock-journeys.js';
import { mockSignUpScenarios } from './scenarios/mock-sign-up.js';
import { contractProvocationScenarios } from './scenarios/provoke-contract.js';
import { writesProvocationScenarios } from './scenarios/provoke-writes.js';
import { keyPreviewScenarios } from './scenarios/key-previews.js';
import { messageSendErrorScenarios } from './scenarios/message-send-errors.js';
import { missingHeaderScenarios, negativeDataScenarios } from './scenarios/negative.js';
import { negativeQueryScenarios } from './scenarios/negative-query.js';
import { readScenarios, unknownResourceScenarios } from './scenarios/reads.js';
import { tenDlcStateScenarios } from './scenarios/ten-dlc-state.js';
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

/** What the run has besides the level: the mock announced itself, a second key or a fixture account's key was given. */
export interface PlanOptions {
  /** The package's mock announced itself (GET /__mock/about): the `writes` level also provokes what only it can show, on accounts it signs up there. */
  mock?: boolean;
  secondKey?: boolean;
  /** `--empty-wallet-key`: an account the team set aside on an empty wallet. */
  emptyWallet?: boolean;
  /** `--free-account-key`: a free account the team set aside. */
  freeAccount?: boolean;
}

/** The plan options a run's settings give. */
export function planOptions(config: Pick<ConformanceConfig, 'mock' | 'secondKey' | 'emptyWalletKey' | 'freeAccountKey'>): Required<PlanOptions> {
  return { mock: config.mock !== undefined, secondKey: config.secondKey !== undefined, emptyWallet: config.emptyWalletKey !== undefined, freeAccount: config.freeAccountKey !== undefined };
}

export function planScenarios(document: Json, level: Level, options: PlanOptions = {}): Plan {
  const operations = listOperations(document);
  const notSent: NotSent[] = [];
  // On the mock, the writes level sends the operations a deployment never gets, on accounts of its own.
  const onMockAccounts = options.mock === true && level === 'writes';
  const sendable = operations.filter((op) => {
    const reason = neverSentReason(op);
    if (reason && !onMockAccounts) notSent.push({ operationId: op.operationId, method: op.method, path: op.path, reason });
    return !reason;
  });
  const scenarios: ScenarioDraft[] = [];
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
    ...messageSendErrorScenarios(sendable),
    ...tenDlcStateScenarios(sendable),
    ...contractProvocationScenarios(sendable),
    ...writeScenarios(sendable),
    ...writesProvocationScenarios(sendable),
    ...isolationScenarios(operations, options),
    ...fixtureAccountScenarios(sendable, options),
  );
  if (options.mock) scenarios.push(...mockSignUpScenarios(operations), ...mockJourneyScenarios(operations));
  return { scenarios: scenarios.filter((s) => level === 'writes' || s.level === 'contract').map(withId), notSent };
}

/** Every scenario the suite has, whatever the run: to say of a documented answer not provoked which scenario would, and what it needs. */
export function fullPlan(document: Json): Plan {
  return planScenarios(document, 'writes', { mock: true, secondKey: true, emptyWallet: true, freeAccount: true });
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
