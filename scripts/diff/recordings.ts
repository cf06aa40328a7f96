// Recordings broken by a contract change (`npm run diff -- <previous> --recordings <dir>`): each
// recording (numbers-api mock --record, an Arazzo workflow of what a frontend did) is checked
// against the previous and the current descriptions by the same check as the contract's
// workflows (src/contract/workflows.ts): an operation, parameter, body field or answer field a
// step sends or reads that is gone or changed is "breaks recording <name>". A breaking change of
// the description whose operations no broken recording calls is reported as touching none.
import { checkWorkflows, type WorkflowProblem } from '../../src/contract/workflows.js';
import type { RecordingFile } from '../../src/recording/recording-files-read.js';
import { stepOperation } from '../../src/workflows/arazzo-runner.js';
import type { JsonObject } from '../../src/contract/json-pointer.js';
import type { Change } from './changes.js';
import type { ContractDocuments } from './documents.js';

const key = (p: WorkflowProblem): string => `${p.stepId ?? ''}\u0000${p.where}\u0000${p.message}`;

export interface RecordingsVerdict {
  /** The recordings read. */
  names: string[];
  /** `breaks recording <name>` changes, one per step problem. */
  changes: Change[];
  /** The messages of the description's breaking changes that reach no operation a broken recording calls. */
  untouched: string[];
}

/** The `METHOD /path` of each step's operation, as a change's `affects` names it. */
function routesOf(recording: JsonObject, openapi: JsonObject): Set<string> {
  const routes = new Set<string>();
  const byId = new Map<string, string>();
  for (const [path, item] of Object.entries((openapi.paths ?? {}) as JsonObject)) for (const [method, op] of Object.entries(item as JsonObject)) if ((op as JsonObject)?.operationId) byId.set(String((op as JsonObject).operationId), `${method.toUpperCase()} ${path}`);
  for (const step of ((recording.workflows as JsonObject[])[0]?.steps ?? []) as JsonObject[]) {
    const named = stepOperation(step);
    if (named?.source === 'numbersApi' && byId.has(named.operationId)) routes.add(byId.get(named.operationId)!);
  }
  return routes;
}

export function compareRecordings(recordings: RecordingFile[], previous: ContractDocuments, current: ContractDocuments, descriptionChanges: Change[]): RecordingsVerdict {
  const changes: Change[] = [];
  if (!previous.openapi || !current.openapi) return { names: recordings.map((r) => r.name), changes, untouched: [] };
  const mockControl = current.mockControl ?? previous.mockControl;
  const sources = (release: ContractDocuments) => ({ numbersApi: release.openapi!, ...(mockControl ? { mockControl: release.mockControl ?? mockControl } : {}) });
  const brokenRoutes = new Set<string>();
  for (const recording of recordings) {
    const before = new Set(checkWorkflows(recording.document, sources(previous)).map(key));
    const problems = checkWorkflows(recording.document, sources(current)).filter((p) => !before.has(key(p)));
    if (problems.length > 0) for (const route of routesOf(recording.document, current.openapi)) brokenRoutes.add(route);
    for (const problem of problems) {
      changes.push({
        classification: 'breaking',
        code: 'recording-broken',
        message: `breaks recording ${recording.name}${problem.stepId ? `: step ${problem.stepId}` : ''} ${problem.message}`,
        document: 'workflows',
        pointer: problem.where.replace(/^#/, ''),
        in: 'current',
        affects: [`recording ${recording.name}`],
        directions: [],
      });
    }
  }
  const untouched = descriptionChanges
    .filter((c) => c.classification === 'breaking' && c.document === 'openapi')
    .filter((c) => !c.affects.some((a) => [...brokenRoutes].some((route) => a.includes(route))))
    .map((c) => c.message);
  return { names: recordings.map((r) => r.name), changes, untouched };
}
