// A runtime expression of a workflow in words, for people: `$steps.callLine.outputs.fromNumberId`
// reads "from step callLine's fromNumberId (its answer's field 0/id)". The docs' workflow pages
// and the conformance suite's findings (where a failing step's value came from) both say it so.
// Browser-safe.
import type { JsonObject } from '../contract/json-pointer.js';

/** `expression` in words; `steps` (the workflow's) lets a step's output name the answer field it was kept from. */
export function expressionWords(expression: string, steps: JsonObject[] = []): string {
  const [head = '', pointer] = String(expression).split('#');
  const field = pointer ? pointer.replace(/^\//, '') : '';
  if (head === '$statusCode') return 'the status code';
  if (head === '$response.body') return field ? `the answer's field ${field}` : 'the answer';
  if (head.startsWith('$response.header.')) return `the answer's header ${head.slice('$response.header.'.length)}`;
  const parts = head.split('.');
  if (parts[0] === '$inputs') return parts[1] === 'apiKey' ? 'the key (input apiKey)' : `input ${parts[1]}${field ? `'s ${field}` : ''}`;
  if (parts[0] === '$components' && parts[2] === 'apiKey') return 'the key (input apiKey)';
  if (parts[0] === '$steps' && parts[2] === 'outputs') {
    const step = steps.find((s) => s.stepId === parts[1]);
    const origin = step?.outputs?.[parts[3]!];
    const kept =
      typeof origin === 'string' && origin.startsWith('$response.body#') ? ` (its answer's field ${origin.split('#')[1]!.replace(/^\//, '')})` : step?.workflowId ? ` (an output of workflow ${step.workflowId})` : '';
    return `from step ${parts[1]}'s ${parts[3]}${field ? ` ${field}` : ''}${kept}`;
  }
  if (parts[0] === '$workflows' && parts[2] === 'outputs') return `from workflow ${parts[1]}'s ${parts[3]}`;
  if (parts[0] === '$outputs') return `the workflow's output ${parts[1]}`;
  return expression;
}

/** Each runtime expression a step sends (parameters and body, `{$…}` inside text too), with where it is sent. */
export function expressionsSent(step: JsonObject): Array<{ at: string; expression: string }> {
  const found: Array<{ at: string; expression: string }> = [];
  const visit = (value: unknown, at: string): void => {
    if (typeof value === 'string') {
      if (/^\$[A-Za-z]/.test(value) && !/\s/.test(value)) found.push({ at, expression: value });
      else for (const m of value.matchAll(/\{(\$[^}]+)\}/g)) found.push({ at, expression: m[1]! });
    } else if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${at}/${i}`));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, at ? `${at}.${k}` : k);
  };
  for (const parameter of (step.parameters ?? []) as JsonObject[]) if (!parameter.reference) visit(parameter.value, String(parameter.name));
  if (step.requestBody) visit((step.requestBody as JsonObject).payload, 'body');
  return found;
}
