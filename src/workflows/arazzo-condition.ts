// Arazzo 1.0.1 criteria, evaluated the way Redocly Respect evaluates them (the runner the
// contract's workflows are tested with): a simple condition (read by the one grammar,
// src/contract/runtime-expression.ts), a `regex` over the value of its `context`, and a
// `jsonpath` (RFC 9535, by jsonpath-rfc9535) applied to `[context]`, true when it selects
// anything, with `{$expression}` replaced by its value's JSON first. Pure: values come from a
// function that evaluates a runtime expression.
import { query, type JsonValue } from 'jsonpath-rfc9535';
import { criterionType, formatExpression, parseCondition, parseEmbedded, parseRuntimeExpression, type Condition, type Criterion, type RuntimeExpression } from '../contract/runtime-expression.js';

export type Evaluate = (expression: RuntimeExpression) => unknown;

const same = (a: unknown, b: unknown): boolean => {
  if (a == null || b == null) return a == null && b == null;
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '') return a === Number(b);
  if (typeof b === 'number' && typeof a === 'string' && a.trim() !== '') return b === Number(a);
  return typeof a === 'object' || typeof b === 'object' ? JSON.stringify(a) === JSON.stringify(b) : a === b;
};

const order = (op: string, a: unknown, b: unknown): boolean => {
  const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  const [x, y] = [a as number | string, b as number | string];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
};

function evaluateNode(node: Condition, evaluate: Evaluate): unknown {
  switch (node.kind) {
    case 'value':
      return node.value;
    case 'expression':
      return evaluate(node.expression);
    case 'not':
      return !evaluateNode(node.operand, evaluate);
    case 'binary': {
      if (node.op === '&&') return Boolean(evaluateNode(node.left, evaluate)) && Boolean(evaluateNode(node.right, evaluate));
      if (node.op === '||') return Boolean(evaluateNode(node.left, evaluate)) || Boolean(evaluateNode(node.right, evaluate));
      const [a, b] = [evaluateNode(node.left, evaluate), evaluateNode(node.right, evaluate)];
      if (node.op === '==') return same(a, b);
      if (node.op === '!=') return !same(a, b);
      return order(node.op, a, b);
    }
  }
}

/** Replaces each `{$expression}` in a string by its value (strings, objects and arrays as JSON; others as text). */
export function embedExpressions(text: string, evaluate: Evaluate, asJson: boolean): string {
  return parseEmbedded(text)
    .map((part) => {
      if (typeof part === 'string') return part;
      const value = evaluate(part);
      if (value === undefined) return `{${formatExpression(part)}}`;
      return asJson && (typeof value === 'string' || typeof value === 'object') ? JSON.stringify(value) : String(value);
    })
    .join('');
}

/** Whether a criterion holds. Throws `ExpressionSyntaxError` on a condition it cannot read, and an Error on an unknown type. */
export function criterionHolds(criterion: Criterion, evaluate: Evaluate): boolean {
  const type = criterionType(criterion);
  if (type === 'simple') return Boolean(evaluateNode(parseCondition(criterion.condition), evaluate));
  const context = criterion.context ? evaluate(parseRuntimeExpression(criterion.context)) : undefined;
  if (type === 'regex') {
    const literal = /^\/(.*)\/([gimsuy]*)$/.exec(criterion.condition);
    return typeof context === 'string' && new RegExp(literal ? literal[1]! : criterion.condition, literal ? literal[2] : '').test(context);
  }
  if (type === 'jsonpath') {
    const path = embedExpressions(criterion.condition, evaluate, true);
    try {
      return query([context ?? null] as JsonValue, path).length > 0;
    } catch {
      return false;
    }
  }
  throw new Error(`criterion type "${type}" is not one this runner reads (simple, regex, jsonpath)`);
}
