// The opt-in `writes` level (`--level writes --to <test number>`): flows across requests, which a
// read-only suite cannot judge. Each creates only what it names, takes its sends from the run's
// budget (`--max-sends`, see sends.ts) before sending, and cites its part:
// - send, then list (parts 4.5, 8): message-flows.ts
// - idempotent call (part 7.2): call-flows.ts
// - events tie to actions (part 6): event-flows.ts
// - read your write (part 4.2): account-flows.ts
import type { Operation } from '../description.js';
import type { ScenarioDraft } from '../scenario.js';
import { accountFlowScenarios } from './account-flows.js';
import { callFlowScenarios } from './call-flows.js';
import { eventFlowScenarios } from './event-flows.js';
import { messageFlowScenarios } from './message-flows.js';

export function writeScenarios(operations: Operation[]): ScenarioDraft[] {
  return [...messageFlowScenarios(operations), ...callFlowScenarios(operations), ...eventFlowScenarios(operations), ...accountFlowScenarios(operations)];
}
