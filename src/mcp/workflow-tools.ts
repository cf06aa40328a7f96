// The contract's workflows (generated/workflows.arazzo.json) as higher-level tools, derived from
// the workflow documents: the tool's description is the workflow's summary, description and its
// steps (each with the operation it calls, mock-only steps said so); its input schema the
// workflow's inputs less the key (the server holds it); its output the run: every step with
// what it sent and got, and the workflow's outputs. What a workflow may do follows its
// `x-conformance` level (spec/EXTENSIONS.md) and, step by step, the same policy every tool obeys.
import type { JsonObject } from '../contract/json-pointer.js';
import { stepOperation, workflowsReached } from '../workflows/arazzo-runner.js';
import type { ToolDefinition } from './operation-tools.js';

export const WORKFLOW_TOOL_PREFIX = 'workflow_';

/** The inputs the server fills itself and never shows (the key: it never appears in a tool). */
export const HIDDEN_INPUTS = new Set(['apiKey']);

export interface WorkflowTool {
  kind: 'workflow';
  workflowId: string;
  /** `contract`, `writes` or `never` (x-conformance). */
  level: string;
  levelReason: string;
  /** Every operation the run may send, sub-workflows included: `[source, operationId]`. */
  operations: Array<{ source: string; operationId: string }>;
  definition: ToolDefinition;
}

// What a run returns, step by step (arazzo-runner.ts `StepRecord`): what each step ran, sent and got.
const STEP_RECORD_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    stepId: { type: 'string' },
    description: { type: 'string' },
    runs: { type: 'string' },
    outcome: { enum: ['passed', 'failed', 'skipped', 'refused'] },
    request: { type: 'object' },
    status: { type: 'integer' },
    response: {},
    notes: { type: 'array', items: { type: 'string' } },
    steps: { type: 'array', items: { $ref: '#/$defs/StepRecord' } },
  },
  required: ['stepId', 'runs', 'outcome'],
};

function inputSchemaOf(workflow: JsonObject, onMock: boolean): JsonObject {
  const properties = Object.fromEntries(
    Object.entries((workflow.inputs?.properties ?? {}) as JsonObject)
      .filter(([name]) => !HIDDEN_INPUTS.has(name))
      // The defaults are the mock's values (its test numbers and codes): on a deployment each input is asked for.
      .map(([name, schema]) => [name, onMock ? schema : Object.fromEntries(Object.entries(schema as JsonObject).filter(([k]) => k !== 'default'))]),
  );
  const required = onMock ? ((workflow.inputs?.required ?? []) as string[]).filter((name) => !HIDDEN_INPUTS.has(name)) : Object.keys(properties);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function outputSchemaOf(workflow: JsonObject): JsonObject {
  return {
    type: 'object',
    properties: {
      workflowId: { const: workflow.workflowId },
      passed: { type: 'boolean' },
      outputs: { type: 'object', properties: Object.fromEntries(Object.keys((workflow.outputs ?? {}) as JsonObject).map((name) => [name, {}])) },
      steps: { type: 'array', items: { $ref: '#/$defs/StepRecord' } },
    },
    required: ['workflowId', 'passed', 'outputs', 'steps'],
    $defs: { StepRecord: STEP_RECORD_SCHEMA },
  };
}

function descriptionOf(arazzo: JsonObject, workflow: JsonObject, level: string, levelReason: string): string {
  const steps = ((workflow.steps ?? []) as JsonObject[]).map((step, i) => {
    const operation = stepOperation(step);
    const runs = step.workflowId ? `workflow ${step.workflowId}` : operation ? operation.operationId : String(step.operationId);
    return `${i + 1}. ${step.stepId}: ${runs}${operation?.source === 'mockControl' ? ' (mock only)' : ''}`;
  });
  const reached = workflowsReached(arazzo, String(workflow.workflowId)).slice(1);
  return [
    `${String(workflow.summary ?? workflow.workflowId).replace(/\.$/, '')}. Runs the contract's Arazzo workflow ${workflow.workflowId} and returns every step.`,
    String(workflow.description ?? '').trim(),
    `Steps:\n${steps.join('\n')}${reached.length > 0 ? `\n(also runs ${reached.join(', ')})` : ''}`,
    `What it sends (x-conformance ${level}): ${levelReason}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Every workflow of the Arazzo document as a tool, in document order. */
export function workflowTools(arazzo: JsonObject, onMock: boolean): WorkflowTool[] {
  return ((arazzo.workflows ?? []) as JsonObject[]).map((workflow) => {
    const workflowId = String(workflow.workflowId);
    const level = String(workflow['x-conformance']?.level ?? 'never');
    const levelReason = String(workflow['x-conformance']?.reason ?? '');
    const operations = workflowsReached(arazzo, workflowId).flatMap((id) =>
      (((arazzo.workflows as JsonObject[]).find((w) => w.workflowId === id)?.steps ?? []) as JsonObject[]).map(stepOperation).filter((o): o is { source: string; operationId: string } => o !== undefined),
    );
    const writes = level !== 'contract';
    return {
      kind: 'workflow' as const,
      workflowId,
      level,
      levelReason,
      operations,
      definition: {
        name: `${WORKFLOW_TOOL_PREFIX}${workflowId}`,
        title: String(workflow.summary ?? workflowId),
        description: descriptionOf(arazzo, workflow, level, levelReason),
        inputSchema: inputSchemaOf(workflow, onMock),
        outputSchema: outputSchemaOf(workflow),
        annotations: { title: String(workflow.summary ?? workflowId), readOnlyHint: !writes, ...(writes ? { destructiveHint: level === 'never', idempotentHint: false } : {}) },
      },
    };
  });
}
