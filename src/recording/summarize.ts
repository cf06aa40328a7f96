// What a set of recordings depends on (`numbers-api recordings summarize <dir>`): for each
// operation the recordings call, the statuses they expect, the request fields they send, the
// answer fields they read (carried values, criteria) and the values they carry from one step to
// the next. Read from the Arazzo documents alone, so it works on any recording file.
import type { JsonObject } from '../contract/json-pointer.js';
import { expressionsIn } from '../contract/workflows.js';
import type { RecordingFile } from './recording-files-read.js';

export interface OperationUse {
  operationId: string;
  source: string;
  /** The recordings that call it. */
  recordings: string[];
  statuses: number[];
  /** Request fields sent: `body /fromNumberId`, `query limit`, `header Idempotency-Key`. */
  sends: string[];
  /** Answer fields read: `/0/id`, `/phoneNumberId`. */
  reads: string[];
}

export interface Summary {
  recordings: Array<{ name: string; steps: number; level: string; mockOnlySteps: number }>;
  operations: OperationUse[];
  /** `listNumbers /0/id → sendMessage body /fromNumberId`, per recording. */
  carries: Array<{ recording: string; from: string; to: string }>;
}

function payloadFields(value: unknown, pointer = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).flatMap(([k, v]) => payloadFields(v, `${pointer}/${k}`));
  return pointer ? [pointer] : [];
}

export function summarizeRecordings(files: RecordingFile[]): Summary {
  const operations = new Map<string, OperationUse>();
  const summary: Summary = { recordings: [], operations: [], carries: [] };
  for (const { name, document } of files) {
    const workflow = (document.workflows as JsonObject[])[0]!;
    const steps = workflow.steps as JsonObject[];
    const outputs = new Map<string, string>();
    for (const step of steps) for (const [output, expression] of Object.entries((step.outputs ?? {}) as Record<string, string>)) outputs.set(`$steps.${step.stepId}.outputs.${output}`, `${step.stepId} ${String(expression).replace('$response.body#', '')}`);
    summary.recordings.push({ name, steps: steps.length, level: String(workflow['x-conformance']?.level ?? 'unknown'), mockOnlySteps: steps.filter((s) => String(s.operationId).startsWith('$sourceDescriptions.mockControl.')).length });
    for (const step of steps) {
      const match = /^\$sourceDescriptions\.(\w+)\.(.+)$/.exec(String(step.operationId ?? ''));
      if (!match) continue;
      const [, source, operationId] = match as unknown as [string, string, string];
      const use = operations.get(`${source}.${operationId}`) ?? { operationId, source, recordings: [], statuses: [], sends: [], reads: [] };
      operations.set(`${source}.${operationId}`, use);
      if (!use.recordings.includes(name)) use.recordings.push(name);
      const add = (list: string[], item: string): void => void (list.includes(item) || list.push(item));
      for (const criterion of (step.successCriteria ?? []) as JsonObject[]) {
        for (const status of String(criterion.condition).matchAll(/\$statusCode == (\d{3})/g)) if (!use.statuses.includes(Number(status[1]))) use.statuses.push(Number(status[1]));
        for (const expression of [...expressionsIn(criterion.condition), ...expressionsIn(criterion.context ?? '')]) if (expression.startsWith('$response.body#')) add(use.reads, expression.slice('$response.body#'.length));
      }
      for (const expression of Object.values((step.outputs ?? {}) as Record<string, string>)) if (String(expression).startsWith('$response.body#')) add(use.reads, String(expression).slice('$response.body#'.length));
      for (const parameter of (step.parameters ?? []) as JsonObject[]) {
        if (String(parameter.name).toLowerCase() !== 'authorization') add(use.sends, `${parameter.in} ${parameter.name}`);
        for (const expression of expressionsIn(parameter.value)) if (outputs.has(expression)) summary.carries.push({ recording: name, from: outputs.get(expression)!, to: `${step.stepId} ${parameter.in} ${parameter.name}` });
      }
      const payload = (step.requestBody as JsonObject | undefined)?.payload;
      for (const field of payloadFields(payload)) {
        add(use.sends, `body ${field}`);
        const value = field.split('/').slice(1).reduce<unknown>((v, k) => (v as JsonObject)?.[k], payload);
        for (const expression of expressionsIn(value)) if (outputs.has(expression)) summary.carries.push({ recording: name, from: outputs.get(expression)!, to: `${step.stepId} body ${field}` });
      }
      use.statuses.sort();
    }
  }
  summary.operations = [...operations.values()].sort((a, b) => a.source.localeCompare(b.source) || a.operationId.localeCompare(b.operationId));
  return summary;
}

/** The summary as text: one block per operation, then the carried values. */
export function formatSummary(summary: Summary): string {
  const out = [`${summary.recordings.length} recording${summary.recordings.length === 1 ? '' : 's'}:`];
  for (const r of summary.recordings) out.push(`  ${r.name}: ${r.steps} steps (${r.mockOnlySteps} mock only), replays at level ${r.level}`);
  out.push('', 'Operations they depend on:');
  for (const op of summary.operations) {
    out.push(`  ${op.source === 'mockControl' ? '(mock only) ' : ''}${op.operationId} -> ${op.statuses.join(', ')}  [${op.recordings.join(', ')}]`);
    if (op.sends.length > 0) out.push(`    sends: ${op.sends.join(', ')}`);
    if (op.reads.length > 0) out.push(`    reads: ${op.reads.join(', ')}`);
  }
  if (summary.carries.length > 0) {
    out.push('', 'Values carried from an answer to a later request:');
    for (const c of summary.carries) out.push(`  ${c.recording}: ${c.from} -> ${c.to}`);
  }
  return `${out.join('\n')}\n`;
}
