// Arazzo 1.0.1 criteria, evaluated the way Redocly Respect evaluates them (the runner the
// contract's workflows are tested with): a simple condition (literals, runtime expressions,
// `== != < <= > >=`, `! && ||`, parentheses), a `regex` over the value of its `context`, and a
// `jsonpath` (RFC 9535, by jsonpath-rfc9535) applied to `[context]`, true when it selects
// anything, with `{$expression}` replaced by its value's JSON first. Pure: values come from a
// function that evaluates a runtime expression.
import { query, type JsonValue } from 'jsonpath-rfc9535';

export type Evaluate = (expression: string) => unknown;

type Token = { kind: 'value'; value: unknown } | { kind: 'expression'; text: string } | { kind: 'op'; text: string };

const EXPRESSION = /\$[A-Za-z_][\w.-]*(?:#[\w/~.-]*)?/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;
const OPERATOR = /==|!=|<=|>=|&&|\|\||[<>!()]/y;

export class ConditionError extends Error {}

function tokenize(condition: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const sticky = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(condition);
    if (!match) return undefined;
    at += match[0].length;
    return match[0];
  };
  while (at < condition.length) {
    if (/\s/.test(condition[at]!)) {
      at += 1;
      continue;
    }
    const quote = condition[at];
    if (quote === "'" || quote === '"') {
      const end = condition.indexOf(quote, at + 1);
      if (end < 0) throw new ConditionError(`unterminated string in "${condition}"`);
      tokens.push({ kind: 'value', value: condition.slice(at + 1, end) });
      at = end + 1;
      continue;
    }
    const word = /^(true|false|null)\b/.exec(condition.slice(at))?.[1];
    if (word) {
      tokens.push({ kind: 'value', value: word === 'null' ? null : word === 'true' });
      at += word.length;
      continue;
    }
    const expression = sticky(EXPRESSION);
    if (expression) {
      tokens.push({ kind: 'expression', text: expression });
      continue;
    }
    const number = sticky(NUMBER);
    if (number) {
      tokens.push({ kind: 'value', value: Number(number) });
      continue;
    }
    const op = sticky(OPERATOR);
    if (op) {
      tokens.push({ kind: 'op', text: op });
      continue;
    }
    throw new ConditionError(`cannot read "${condition.slice(at)}" in the condition "${condition}"`);
  }
  return tokens;
}

type Node = { kind: 'value'; value: unknown } | { kind: 'expression'; text: string } | { kind: 'not'; operand: Node } | { kind: 'binary'; op: string; left: Node; right: Node };

/** A simple condition parsed once (throws `ConditionError` on one it cannot read). */
export function parseCondition(condition: string): Node {
  const tokens = tokenize(condition);
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const isOp = (text: string): boolean => peek()?.kind === 'op' && (peek() as { text: string }).text === text;
  const primary = (): Node => {
    const token = tokens[i++];
    if (!token) throw new ConditionError(`the condition "${condition}" ends too early`);
    if (token.kind === 'value') return { kind: 'value', value: token.value };
    if (token.kind === 'expression') return { kind: 'expression', text: token.text };
    if (token.text === '(') {
      const inner = or();
      if (!isOp(')')) throw new ConditionError(`a "(" is not closed in "${condition}"`);
      i += 1;
      return inner;
    }
    throw new ConditionError(`unexpected "${token.text}" in "${condition}"`);
  };
  const comparison = (): Node => {
    const left = primary();
    const next = peek();
    if (next?.kind === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(next.text)) {
      i += 1;
      return { kind: 'binary', op: next.text, left, right: primary() };
    }
    return left;
  };
  const unary = (): Node => {
    if (isOp('!')) {
      i += 1;
      return { kind: 'not', operand: unary() };
    }
    return comparison();
  };
  const and = (): Node => {
    let node = unary();
    while (isOp('&&')) {
      i += 1;
      node = { kind: 'binary', op: '&&', left: node, right: unary() };
    }
    return node;
  };
  const or = (): Node => {
    let node = and();
    while (isOp('||')) {
      i += 1;
      node = { kind: 'binary', op: '||', left: node, right: and() };
    }
    return node;
  };
  const tree = or();
  if (i < tokens.length) throw new ConditionError(`unexpected "${JSON.stringify(tokens[i])}" in "${condition}"`);
  return tree;
}

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

function evaluateNode(node: Node, evaluate: Evaluate): unknown {
  switch (node.kind) {
    case 'value':
      return node.value;
    case 'expression':
      return evaluate(node.text);
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

export interface Criterion {
  condition: string;
  context?: string;
  type?: string | { type: string; version?: string };
}

const typeOf = (criterion: Criterion): string => (typeof criterion.type === 'object' ? criterion.type.type : (criterion.type ?? 'simple'));

/** Replaces each `{$expression}` in a string by its value (strings, objects and arrays as JSON; others as text). */
export function embedExpressions(text: string, evaluate: Evaluate, asJson: boolean): string {
  return text.replace(/\{(\$[^{}]+)\}/g, (all, expression: string) => {
    const value = evaluate(expression);
    if (value === undefined) return all;
    return asJson && (typeof value === 'string' || typeof value === 'object') ? JSON.stringify(value) : String(value);
  });
}

/** Whether a criterion holds. Throws `ConditionError` on a condition it cannot read, or an unknown type. */
export function criterionHolds(criterion: Criterion, evaluate: Evaluate): boolean {
  const type = typeOf(criterion);
  if (type === 'simple') return Boolean(evaluateNode(parseCondition(criterion.condition), evaluate));
  const context = criterion.context ? evaluate(criterion.context) : undefined;
  if (type === 'regex') {
    const literal = /^\/(.*)\/([gimsuy]*)$/.exec(criterion.condition);
    return typeof context === 'string' && new RegExp(literal ? literal[1]! : criterion.condition, literal ? literal[2] : '').test(context);
  }
  if (type === 'jsonpath') {
    try {
      return query([context ?? null] as JsonValue, embedExpressions(criterion.condition, evaluate, true)).length > 0;
    } catch {
      return false;
    }
  }
  throw new ConditionError(`criterion type "${type}" is not one this runner reads (simple, regex, jsonpath)`);
}
