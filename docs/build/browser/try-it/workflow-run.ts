// "Run this workflow" on a workflow's page (docs/build/workflows-page.mjs): the page carries the
// workflow as JSON (#workflow-run-data); the button plays it with the package's one Arazzo runner
// (src/workflows/arazzo-runner.ts) against the stateful mock in the page, each step's request
// sent as the package's one outgoing request (src/request/), and shows every request and answer as it happens, then
// each step's outcome and the workflow's outputs. A new key of the in-page mock each run. The
// in-page mock's clock stands still while the reader reads; during a run it moves with real time
// (as the `npm start` mock's does), so a step that waits for a delivery sees it.
import { WorkflowRunner, type StepRecord, type StepRequest, type WorkflowRun } from '../../../../src/workflows/arazzo-runner.js';
import { runnerOperations, type OperationTable } from '../../../../src/workflows/step-request.js';
import { createRequester, NoAnswer, paramsOf, type RequestData } from '../../../../src/request/index.js';
import type { JsonObject } from '../../../../src/contract/json-pointer.js';
import { catalog } from './catalog.js';
import { h } from './console.js';
import { inPageMock } from './in-page-mock.js';

interface RunData {
  workflowId: string;
  arazzo: JsonObject;
  operations: OperationTable;
}

const TICK_MS = 250;
const pretty = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const newKey = (): string => `sk_live_docs_wf_${Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** The records of a run in the order their requests were sent (a sub-workflow's steps in its place). */
function sentRecords(steps: StepRecord[]): StepRecord[] {
  return steps.flatMap((record) => (record.steps ? sentRecords(record.steps) : record.status !== undefined ? [record] : []));
}

export function mountWorkflowRun(mount: HTMLElement): void {
  const data = JSON.parse(document.getElementById('workflow-run-data')?.textContent ?? 'null') as RunData | null;
  if (!data || data.workflowId !== mount.dataset.runWorkflow) return;
  const button = h('button', { type: 'button', class: 'try-it-send workflow-run-button' }, 'Run this workflow');
  const status = h('p', { class: 'workflow-run-status muted', 'aria-live': 'polite' }, `${data.workflowId}: not run yet.`);
  const list = h('ol', { class: 'workflow-run-steps' });
  const outputs = h('div', { class: 'workflow-run-outputs' });
  const box = h('div', { class: 'try-it workflow-run-box' }, h('div', { class: 'try-it-row' }, button), status, list, outputs);
  mount.replaceChildren(box);
  mount.dataset.mounted = 'true';

  button.addEventListener('click', async () => {
    button.disabled = true;
    list.replaceChildren();
    outputs.replaceChildren();
    box.dataset.outcome = 'running';
    status.textContent = `${data.workflowId}: running…`;
    const mock = await inPageMock();
    const ticker = setInterval(() => mock.advance(TICK_MS / 1000), TICK_MS);
    const key = newKey();
    const entries: HTMLLIElement[] = [];
    const requests = createRequester({ baseUrl: catalog.mockUrl, secrets: [key], fetch: (request) => mock.send(request) });
    const call = async (step: StepRequest) => {
      const route = data.operations[step.source]?.[step.operationId];
      if (!route) return { refused: `${step.operationId} is not in this page's operations` };
      const answerBox = h('pre', { class: 'workflow-run-answer' }, h('code', {}, '…'));
      // Shown as it goes out, before its answer comes; the key as a preview.
      const show = (sent: RequestData): void => {
        const headers = [...(step.authorization !== null ? [`authorization: ${requests.redact(step.authorization)}`] : []), ...Object.entries(sent.headers).filter(([name]) => name !== 'accept').map(([name, value]) => `${name}: ${value}`)];
        const sentBody = step.body !== undefined ? `\n\n${pretty(step.body)}` : '';
        const entry = h(
          'li',
          { class: 'workflow-run-step', 'data-step': step.stepId ?? '', 'data-workflow': step.workflowId ?? '' },
          h('p', {}, h('strong', {}, `${step.workflowId === data.workflowId ? '' : `${step.workflowId} › `}${step.stepId}`), ` ${sent.method} ${sent.target}`, h('span', { class: 'workflow-run-outcome' })),
          h('details', {}, h('summary', {}, 'Request'), h('pre', { class: 'workflow-run-request' }, h('code', {}, `${sent.method} ${sent.url}\n${headers.join('\n')}${sentBody}`))),
          h('details', { open: true }, h('summary', { class: 'workflow-run-answer-head' }, 'Answer'), answerBox),
        );
        entries.push(entry);
        list.append(entry);
      };
      try {
        const answer = await requests.send({ method: route.method, path: route.path, params: paramsOf(route.parameters, step.values, step.authorization), body: step.body, onSend: show });
        entries[entries.length - 1]!.dataset.status = String(answer.status);
        answerBox.firstElementChild!.textContent = `${answer.status}${answer.body !== undefined ? `\n\n${pretty(answer.body)}` : ''}`;
        return answer;
      } catch (error) {
        if (error instanceof NoAnswer) return { refused: error.message };
        throw error;
      }
    };
    let run: WorkflowRun | undefined;
    try {
      run = await new WorkflowRunner({ arazzo: data.arazzo, operations: runnerOperations(data.operations), call, isMock: true, hiddenInputs: { apiKey: key } }).run(data.workflowId, {});
    } catch (error) {
      status.textContent = `${data.workflowId}: the run stopped: ${(error as Error).message}`;
    } finally {
      clearInterval(ticker);
      button.disabled = false;
    }
    if (!run) {
      box.dataset.outcome = 'failed';
      return;
    }
    // Each request shown gets its step's outcome, and the criteria that did not hold.
    sentRecords(run.steps).forEach((record, i) => {
      const entry = entries[i];
      if (!entry) return;
      entry.dataset.outcome = record.outcome;
      entry.querySelector('.workflow-run-outcome')!.textContent = ` → ${record.status} ${record.outcome}${record.notes?.length ? ` (${record.notes.join('; ')})` : ''}`;
    });
    const passed = sentRecords(run.steps).filter((r) => r.outcome === 'passed').length;
    box.dataset.outcome = run.passed ? 'passed' : 'failed';
    status.textContent = `${data.workflowId}: ${run.passed ? 'passed' : 'failed'}, ${entries.length} requests, ${passed} passed.`;
    if (Object.keys(run.outputs).length > 0) outputs.replaceChildren(h('p', {}, 'Outputs:'), h('pre', { class: 'workflow-run-output-values' }, h('code', {}, pretty(run.outputs))));
  });
}
