// Workflows broken by a contract change: the steps of the workflows (generated/workflows.arazzo.json)
// that check clean against the previous release's descriptions and not against the current one
// (src/contract/workflows.ts: an operation, parameter, body field or answer field a step uses is
// gone, renamed or narrowed). The workflows are the previous release's when it has them (what a
// consumer followed), else the current ones. Each is a breaking change: a client that follows the
// workflow breaks at that step.

import { checkWorkflows, type WorkflowProblem } from '../../src/contract/workflows.js';
import type { Change } from './changes.js';
import type { ContractDocuments } from './documents.js';

const key = (p: WorkflowProblem): string => `${p.workflowId}\u0000${p.stepId ?? ''}\u0000${p.where}\u0000${p.message}`;

export function compareWorkflows(previous: ContractDocuments, current: ContractDocuments): Change[] {
  const workflows = previous.workflows ?? current.workflows;
  if (!workflows || !previous.openapi || !current.openapi) return [];
  const mockControl = current.mockControl ?? previous.mockControl;
  const sources = (release: ContractDocuments) => ({ numbersApi: release.openapi!, ...(mockControl ? { mockControl: release.mockControl ?? mockControl } : {}) });
  const before = new Set(checkWorkflows(workflows, sources(previous)).map(key));
  return checkWorkflows(workflows, sources(current))
    .filter((problem) => !before.has(key(problem)))
    .map((problem) => ({
      classification: 'breaking',
      code: 'workflow-broken',
      message: `workflow ${problem.workflowId}${problem.stepId ? `, step ${problem.stepId},` : ''} ${problem.message}`,
      document: 'workflows',
      pointer: problem.where.replace(/^#/, ''),
      in: previous.workflows ? 'previous' : 'current',
      affects: [`workflow ${problem.workflowId}`],
      directions: [],
    }));
}
