// A recording (or any Arazzo document of one workflow) replayed against a base URL by the one
// runner of this package (src/workflows/arazzo-runner.ts): each step's request goes out as the
// package's one outgoing request (src/request/: the key to the target's origin only, no redirects
// followed, answers read up to a bound), each answer of the service is also judged by the contract
// validator (as Respect judges it against the description); the steps after one that ended the run
// are reported as not run. Mock-only steps are left out on a deployment by the runner itself.
import { contractValidator } from '../contract/contract-validator.js';
import type { JsonObject } from '../contract/json-pointer.js';
import type { ResolvedOperation } from '../contract/workflows.js';
import { describeVerdict, type Verdict } from '../contract/verdict.js';
import { createRequester, NoAnswer, paramsOf, type RequestData } from '../request/index.js';
import { WorkflowRunner, type Answer, type StepRecord, type StepRequest, type WorkflowRun } from '../workflows/arazzo-runner.js';
import { operationTable, runnerOperations } from '../workflows/step-request.js';

/** Which operation a step sends: its source description, its id, its method and path. */
export type StepOperation = Pick<ResolvedOperation, 'source' | 'operationId' | 'method' | 'path'>;

export interface ReplayOptions {
  /** The recording, parsed. */
  recording: JsonObject;
  document: JsonObject;
  controlDocument: JsonObject;
  baseUrl: string;
  apiKey: string;
  /** Whether the target is this package's mock (mock-only steps run only there). */
  isMock: boolean;
  controlToken?: string;
  /** Other inputs of the workflow (a sign-up code). */
  inputs?: Record<string, unknown>;
  /** Each answer as it comes (the suite's checks read it). */
  onAnswer?: (exchange: StepOperation & Answer & {
    request: StepRequest;
    /** The request as sent (its path and query below the base URL, its headers but the secrets). */
    sent: RequestData;
  }) => void;
  signal?: AbortSignal;
}

export interface StepVerdict {
  stepId: string;
  verdicts: Verdict[];
}

export interface ReplayResult {
  workflowId: string;
  passed: boolean;
  steps: StepRecord[];
  /** The steps never run because a step before them was refused or failed. */
  notRun: string[];
  /** The contract's verdicts on the answers, by step. */
  contract: StepVerdict[];
}

/** The one workflow of a recording (the first, when a document holds several). */
export function recordedWorkflow(recording: JsonObject): JsonObject {
  const workflow = ((recording.workflows ?? []) as JsonObject[])[0];
  if (!workflow) throw new Error('the document has no workflow');
  return workflow;
}

export async function replayRecording(options: ReplayOptions): Promise<ReplayResult> {
  const sources = { numbersApi: options.document, mockControl: options.controlDocument };
  const validator = contractValidator(options.document);
  const workflow = recordedWorkflow(options.recording);
  const judged: Verdict[][] = [];
  const table = operationTable(sources);
  const requests = createRequester({ baseUrl: options.baseUrl, apiKey: options.apiKey, controlToken: options.controlToken });
  const runner = new WorkflowRunner({
    arazzo: options.recording,
    operations: runnerOperations(table),
    isMock: options.isMock,
    hiddenInputs: { apiKey: options.apiKey },
    ...(options.signal ? { signal: options.signal } : {}),
    call: async (request) => {
      const operation = table[request.source]?.[request.operationId];
      if (!operation) return { refused: `${request.source} has no operation ${request.operationId}` };
      const parameters = operation.parameters.filter((p) => p.in !== 'cookie');
      for (const name of Object.keys(request.values)) if (!parameters.some((p) => p.name === name)) parameters.push({ name, in: 'query' });
      let answer;
      try {
        answer = await requests.send({ method: operation.method, path: operation.path, params: paramsOf(parameters, request.values, request.authorization), body: request.body, signal: options.signal });
      } catch (error) {
        if (error instanceof NoAnswer) return { refused: error.message };
        throw error;
      }
      const { status, headers, body } = answer;
      judged.push(request.source === 'numbersApi' ? validator.response(request.operationId, { status, headers, body }) : []);
      options.onAnswer?.({ source: request.source, operationId: request.operationId, method: operation.method, path: operation.path, request, sent: answer.request, status, headers, body });
      return answer;
    },
  });
  const run: WorkflowRun = await runner.run(String(workflow.workflowId), options.inputs ?? {});
  // The contract's verdicts go to the steps that were sent, in the order they were sent.
  const contract: StepVerdict[] = [];
  let sent = 0;
  for (const record of run.steps) {
    if (record.status === undefined) continue;
    const verdicts = judged[sent++] ?? [];
    if (verdicts.length === 0) continue;
    contract.push({ stepId: record.stepId, verdicts });
    record.outcome = 'failed';
    record.notes = [...(record.notes ?? []), ...verdicts.map((v) => `breaks the contract: ${describeVerdict(v)}`)];
  }
  const ran = new Set(run.steps.map((s) => s.stepId));
  const notRun = ((workflow.steps ?? []) as JsonObject[]).map((s) => String(s.stepId)).filter((id) => !ran.has(id));
  return { workflowId: run.workflowId, passed: run.passed && contract.length === 0, steps: run.steps, notRun, contract };
}
