// The contract's workflows played by the package's one Arazzo runner (src/workflows/arazzo-runner.ts,
// which the MCP server, the suite's --workflows and the docs' "Run this workflow" use) through the
// in-process MSW handlers (createHandlers, msw's getResponse, as setupServer answers), with each
// step sent as the package's one outgoing request (src/request/): every workflow passes, as it does under Respect
// (test/workflows-respect.test.ts); and the same runner fails the workflow that reads a rule the
// handlers are made to break, at that step, naming what it carried.
import { getResponse } from 'msw';
import { afterAll, describe, expect, it } from 'vitest';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { createHandlers } from '../src/msw/index.js';
import { WorkflowRunner, type StepRecord } from '../src/workflows/arazzo-runner.js';
import { operationTable, runnerOperations } from '../src/workflows/step-request.js';
import { createRequester, NoAnswer, paramsOf, type RequestData } from '../src/request/index.js';
import type { JsonObject } from './helpers/contract.js';

const arazzo = readGeneratedJson('workflows.arazzo.json') as JsonObject;
const table = operationTable({ numbersApi: readGeneratedJson('openapi.json') as JsonObject, mockControl: readGeneratedJson('mock-control.json') as JsonObject });
const BASE = 'http://127.0.0.1:4010';
const api = createHandlers({ validateResponses: 'strict' });
afterAll(() => api.control.stop());

const requests = createRequester({
  baseUrl: BASE,
  fetch: async (request) => (await getResponse(api.handlers, request)) ?? Promise.reject(new Error(`no handler for ${request.method} ${request.url}`)),
});

/** A runner over the handlers; `rewrite` may change an answer (a broken rule). */
function runner(key: string, rewrite?: (request: RequestData, answer: { status: number; body: unknown }) => void): WorkflowRunner {
  return new WorkflowRunner({
    arazzo,
    operations: runnerOperations(table),
    isMock: true,
    hiddenInputs: { apiKey: key },
    call: async (step) => {
      const route = table[step.source]![step.operationId]!;
      try {
        const answer = await requests.send({ method: route.method, path: route.path, params: paramsOf(route.parameters, step.values, step.authorization), body: step.body });
        rewrite?.(answer.request, answer);
        return answer;
      } catch (error) {
        if (error instanceof NoAnswer) return { refused: error.message };
        throw error;
      }
    },
  });
}

const failures = (steps: StepRecord[]): string[] => steps.flatMap((s) => (s.steps ? failures(s.steps) : s.outcome === 'passed' || s.outcome === 'skipped' ? [] : [`${s.stepId}: ${s.outcome} ${s.status ?? ''} ${(s.notes ?? []).join('; ')}`]));

describe('every workflow through createHandlers, by the shared runner', () => {
  // One after another: several start the mock over (mockReset), which would pull the ground from under the others.
  it.each((arazzo.workflows as JsonObject[]).map((w) => String(w.workflowId)))('%s passes', async (workflowId) => {
    const run = await runner(`sk_live_runner_${workflowId}`).run(workflowId, {});
    expect(failures(run.steps)).toEqual([]);
    expect(run.passed).toBe(true);
  }, 60_000);
});

describe('a broken rule fails the workflow that reads it, under the shared runner too', () => {
  it('a replay answered 201 (part 7.2) fails placeCallWithReplay at replayCall, with what the step sent', async () => {
    const run = await runner('sk_live_runner_broken', (request, answer) => {
      if (request.method === 'POST' && new URL(request.url).pathname === '/api/v1/calls' && answer.status === 200) answer.status = 201;
    }).run('placeCallWithReplay', {});
    expect(run.passed).toBe(false);
    const failed = run.steps.filter((s) => s.outcome === 'failed');
    expect(failed.map((s) => s.stepId)).toEqual(['replayCall']);
    expect(failed[0]!.notes).toEqual(['not met: $statusCode == 200']);
    expect(String(failed[0]!.request?.values?.['Idempotency-Key'])).toMatch(/^call-after-/);
  }, 60_000);
});
