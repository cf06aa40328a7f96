// What a set of recordings depends on (`numbers-api recordings summarize <dir>`): for each
// operation the recordings call, the statuses they expect, the request fields they send, the
// answer fields they read (carried values, criteria) and the values they carry from one step to
// the next. Read from the Arazzo documents alone, so it works on any recording file.
import type { JsonObject } from '../contract/json-pointer.js';
import { criterionExpressions, criterionType, ExpressionSyntaxError, expressionsIn, formatExpression, statusesCompared, type Criterion, type RuntimeExpression } from '../contract/runtime-expression.js';
import { stepOperation } from '../workflows/arazzo-runner.js';
import { RecordingFileError, type RecordingFile } from './recording-files-read.js';

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

/** The answer field an expression reads (`/0/id`), when it reads one. */
const bodyRead = (e: RuntimeExpression | undefined): string | undefined => (e?.root === '$response' && e.part === 'body' ? e.pointer : undefined);

export function summarizeRecordings(files: RecordingFile[]): Summary {
  const operations = new Map<string, OperationUse>();
  const summary: Summary = { recordings: [], operations: [], carries: [] };
  const add = (list: string[], item: string | undefined): void => void (item === undefined || list.includes(item) || list.push(item));
  for (const { name, document } of files) {
    const workflow = (document.workflows as JsonObject[])[0]!;
    const steps = workflow.steps as JsonObject[];
    try {
      const outputs = new Map<string, string>();
      for (const step of steps) for (const [output, expression] of Object.entries((step.outputs ?? {}) as JsonObject)) outputs.set(formatExpression({ root: '$steps', stepId: String(step.stepId), part: 'outputs', name: output }), `${step.stepId} ${bodyRead(expressionsIn(expression)[0]) || String(expression)}`);
      const carried = (value: unknown, to: string): void => void expressionsIn(value).forEach((e) => outputs.has(formatExpression(e)) && summary.carries.push({ recording: name, from: outputs.get(formatExpression(e))!, to }));
      summary.recordings.push({ name, steps: steps.length, level: String(workflow['x-conformance']?.level ?? 'unknown'), mockOnlySteps: steps.filter((s) => stepOperation(s)?.source === 'mockControl').length });
      for (const step of steps) {
        const target = stepOperation(step);
        if (!target) continue;
        const { source, operationId } = target;
        const use = operations.get(`${source}.${operationId}`) ?? { operationId, source, recordings: [], statuses: [], sends: [], reads: [] };
        operations.set(`${source}.${operationId}`, use);
        add(use.recordings, name);
        for (const criterion of (step.successCriteria ?? []) as Criterion[]) {
          if (criterionType(criterion) === 'simple') for (const status of statusesCompared(criterion.condition)) if (!use.statuses.includes(status)) use.statuses.push(status);
          for (const expression of criterionExpressions(criterion)) add(use.reads, bodyRead(expression));
        }
        for (const expression of expressionsIn(Object.values((step.outputs ?? {}) as JsonObject))) add(use.reads, bodyRead(expression));
        for (const parameter of (step.parameters ?? []) as JsonObject[]) {
          if (String(parameter.name).toLowerCase() !== 'authorization') add(use.sends, `${parameter.in} ${parameter.name}`);
          carried(parameter.value, `${step.stepId} ${parameter.in} ${parameter.name}`);
        }
        const payload = (step.requestBody as JsonObject | undefined)?.payload;
        for (const field of payloadFields(payload)) {
          add(use.sends, `body ${field}`);
          carried(field.split('/').slice(1).reduce<unknown>((v, k) => (v as JsonObject)?.[k], payload), `${step.stepId} body ${field}`);
        }
        use.statuses.sort();
      }
    } catch (error) {
      if (error instanceof ExpressionSyntaxError) throw new RecordingFileError(`recording ${name}: ${error.message}`);
      throw error;
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
