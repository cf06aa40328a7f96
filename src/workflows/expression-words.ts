// A runtime expression of a workflow in words, for people: `$steps.callLine.outputs.fromNumberId`
// reads "from step callLine's fromNumberId (its answer's field 0/id)". The docs' workflow pages
// and the conformance suite's findings (where a failing step's value came from) both say it so.
// Browser-safe.
import type { JsonObject } from '../contract/json-pointer.js';
import { expressionsIn, formatExpression, type RuntimeExpression } from '../contract/runtime-expression.js';

/** `e` in words; `steps` (the workflow's) lets a step's output name the answer field it was kept from. */
export function expressionWords(e: RuntimeExpression, steps: JsonObject[] = []): string {
  const field = 'pointer' in e && e.pointer ? e.pointer.replace(/^\//, '') : '';
  if (e.root === '$statusCode') return 'the status code';
  if (e.root === '$response' && e.part === 'header') return `the answer's header ${e.name}`;
  if (e.root === '$response' && e.part === 'body') return field ? `the answer's field ${field}` : 'the answer';
  if ((e.root === '$inputs' || e.root === '$components') && e.name === 'apiKey') return 'the key (input apiKey)';
  if (e.root === '$inputs') return `input ${e.name}${field ? `'s ${field}` : ''}`;
  if (e.root === '$steps') {
    const step = steps.find((s) => s.stepId === e.stepId);
    const origin = step && !step.workflowId ? expressionsIn(step.outputs?.[e.name])[0] : undefined;
    const kept = step?.workflowId ? ` (an output of workflow ${step.workflowId})` : origin?.root === '$response' && origin.part === 'body' && origin.pointer ? ` (its answer's field ${origin.pointer.replace(/^\//, '')})` : '';
    return `from step ${e.stepId}'s ${e.name}${field ? ` ${field}` : ''}${kept}`;
  }
  if (e.root === '$workflows' && e.part === 'outputs') return `from workflow ${e.workflowId}'s ${e.name}`;
  return e.root === '$outputs' ? `the workflow's output ${e.name}` : formatExpression(e);
}

/** Each runtime expression a step sends (parameters and body, `{$…}` inside text too), with where it is sent. */
export function expressionsSent(step: JsonObject): Array<{ at: string; expression: RuntimeExpression }> {
  const found: Array<{ at: string; expression: RuntimeExpression }> = [];
  const visit = (value: unknown, at: string): void => {
    if (typeof value === 'string') for (const expression of expressionsIn(value)) found.push({ at, expression });
    else if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${at}/${i}`));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, at ? `${at}.${k}` : k);
  };
  for (const parameter of (step.parameters ?? []) as JsonObject[]) if (!parameter.reference) visit(parameter.value, String(parameter.name));
  if (step.requestBody) visit((step.requestBody as JsonObject).payload, 'body');
  return found;
}

