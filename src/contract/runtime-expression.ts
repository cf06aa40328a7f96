// Arazzo 1.0.1 runtime expressions (`$steps.signIn.outputs.apiKey`, `$response.body#/id`), the
// `{$…}` they make inside text, and the simple conditions of criteria, read by one grammar into
// typed values: the runner evaluates them, the workflow checker lints them, the recorder writes
// them, the summary, the replays and the docs read them. Redocly Respect keeps one grammar for its
// evaluator and its linter (respect-core's abnf-parser.pegjs); this is the Arazzo ABNF as a small
// recursive-descent reader. Names are what Arazzo asks ids and keys to match (`[A-Za-z0-9_-]`, and
// `.` inside output, component and operation names); a JSON pointer's segments are `[A-Za-z0-9_.-]`
// with `~0`/`~1`, characters no condition uses for itself. One failure rule: text the grammar does
// not read is an `ExpressionSyntaxError` naming the position. Pure and browser-safe.

export type RuntimeExpression =
  | { root: '$url' | '$method' | '$statusCode' }
  | { root: '$request' | '$response'; part: 'header' | 'query' | 'path'; name: string }
  | { root: '$request' | '$response'; part: 'body'; pointer?: string }
  | { root: '$inputs' | '$outputs'; name: string; pointer?: string }
  | { root: '$steps'; stepId: string; name: string; pointer?: string }
  | { root: '$workflows'; workflowId: string; part: 'inputs' | 'outputs'; name: string; pointer?: string }
  | { root: '$sourceDescriptions'; source: string; name: string }
  | { root: '$components'; part: 'inputs' | 'parameters' | 'successActions' | 'failureActions'; name: string };

/** A simple condition (Arazzo's Criterion Object): literals, expressions, `== != < <= > >=`, `! && ||`, parentheses. */
export type Condition =
  | { kind: 'value'; value: unknown }
  | { kind: 'expression'; expression: RuntimeExpression }
  | { kind: 'not'; operand: Condition }
  | { kind: 'binary'; op: string; left: Condition; right: Condition };

export interface Criterion {
  condition: string;
  context?: string;
  type?: string | { type: string; version?: string };
}

export class ExpressionSyntaxError extends Error {
  override readonly name = 'ExpressionSyntaxError';

  constructor(
    readonly text: string,
    readonly position: number,
    readonly expected: string,
  ) {
    const found = position < text.length ? `"${text.slice(position, position + 12)}"` : 'the end';
    super(`expected ${expected} at position ${position} of "${text}", found ${found}`);
  }
}

const NAME = /[A-Za-z0-9_-]+/y;
const DOTTED = /[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/y;
const TOKEN = /[!#$%&'*+.^_`|~A-Za-z0-9-]+/y;
const POINTER = /(?:\/(?:[A-Za-z0-9_.-]|~[01])*)*/y;
const WORD = /[A-Za-z]+/y;
const SPACE = /\s+/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;
const OPERATOR = /==|!=|<=|>=|&&|\|\||[<>!()]/y;
const COMPONENTS = ['inputs', 'parameters', 'successActions', 'failureActions'] as const;

/** A cursor over `text`: each read takes what its pattern matches at the cursor, or fails there. */
class Reader {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}

  fail(expected: string): never {
    throw new ExpressionSyntaxError(this.text, this.at, expected);
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.at;
    const found = pattern.exec(this.text)?.[0];
    if (found) this.at += found.length;
    return found;
  }

  read(pattern: RegExp, expected: string): string {
    return this.match(pattern) ?? this.fail(expected);
  }

  eat(literal: string): boolean {
    if (!this.text.startsWith(literal, this.at)) return false;
    this.at += literal.length;
    return true;
  }

  expect(literal: string): void {
    if (!this.eat(literal)) this.fail(`"${literal}"`);
  }

  /** `.` and a name; `dotted` lets the name hold dots (output, component and operation names). */
  name(dotted = false): string {
    this.expect('.');
    return this.read(dotted ? DOTTED : NAME, 'a name');
  }

  /** One of `words` after a `.`. */
  oneOf<T extends string>(words: readonly T[]): T {
    this.expect('.');
    const start = this.at;
    const word = this.match(WORD);
    if (word && (words as readonly string[]).includes(word)) return word as T;
    this.at = start;
    return this.fail(words.join(', '));
  }

  pointer(): { pointer?: string } {
    if (!this.eat('#')) return {};
    const pointer = this.match(POINTER) ?? '';
    if (this.text[this.at] === '~') this.fail('~0 or ~1');
    return { pointer };
  }

  /** One runtime expression from the cursor; it ends where the grammar does. */
  expression(): RuntimeExpression {
    this.expect('$');
    const start = this.at;
    const root = `$${this.match(WORD) ?? ''}`;
    switch (root) {
      case '$url':
      case '$method':
      case '$statusCode':
        return { root };
      case '$request':
      case '$response': {
        const part = this.oneOf(['header', 'query', 'path', 'body'] as const);
        if (part === 'body') return { root, part, ...this.pointer() };
        if (part === 'header') return { root, part, name: (this.expect('.'), this.read(TOKEN, 'a header name')) };
        return { root, part, name: this.name(true) };
      }
      case '$inputs':
        return { root, name: this.name(), ...this.pointer() };
      case '$outputs':
        return { root, name: this.name(true), ...this.pointer() };
      case '$steps': {
        const stepId = this.name();
        this.oneOf(['outputs']);
        return { root, stepId, name: this.name(true), ...this.pointer() };
      }
      case '$workflows': {
        const workflowId = this.name();
        const part = this.oneOf(['inputs', 'outputs'] as const);
        return { root, workflowId, part, name: this.name(part === 'outputs'), ...this.pointer() };
      }
      case '$sourceDescriptions':
        return { root, source: this.name(), name: this.name(true) };
      case '$components':
        return { root, part: this.oneOf(COMPONENTS), name: this.name(true) };
    }
    this.at = start;
    return this.fail('$url, $method, $statusCode, $request, $response, $inputs, $outputs, $steps, $workflows, $sourceDescriptions or $components');
  }

  end(): void {
    if (this.at < this.text.length) this.fail('the end of the expression');
  }
}

/** `text`, which must be one runtime expression and nothing else. */
export function parseRuntimeExpression(text: string): RuntimeExpression {
  const reader = new Reader(text);
  const expression = reader.expression();
  reader.end();
  return expression;
}

/** The expression as Arazzo writes it (`parseRuntimeExpression` reads it back the same). */
export function formatExpression(e: RuntimeExpression): string {
  const pointer = 'pointer' in e && e.pointer !== undefined ? `#${e.pointer}` : '';
  switch (e.root) {
    case '$url':
    case '$method':
    case '$statusCode':
      return e.root;
    case '$request':
    case '$response':
      return e.part === 'body' ? `${e.root}.body${pointer}` : `${e.root}.${e.part}.${e.name}`;
    case '$steps':
      return `$steps.${e.stepId}.outputs.${e.name}${pointer}`;
    case '$workflows':
      return `$workflows.${e.workflowId}.${e.part}.${e.name}${pointer}`;
    case '$sourceDescriptions':
      return `$sourceDescriptions.${e.source}.${e.name}`;
    case '$components':
      return `$components.${e.part}.${e.name}`;
    default:
      return `${e.root}.${e.name}${pointer}`;
  }
}

/** Text with `{$…}` parts: literal pieces and the expressions between them. */
export function parseEmbedded(text: string): Array<string | RuntimeExpression> {
  const parts: Array<string | RuntimeExpression> = [];
  const reader = new Reader(text);
  let literal = 0;
  for (let open = text.indexOf('{$'); open >= 0; open = text.indexOf('{$', reader.at)) {
    if (open > literal) parts.push(text.slice(literal, open));
    reader.at = open + 1;
    parts.push(reader.expression());
    reader.expect('}');
    literal = reader.at;
  }
  if (literal < text.length) parts.push(text.slice(literal));
  return parts;
}

/**
 * A string of a workflow as Arazzo reads it: one runtime expression when it begins with `$` and a
 * letter and holds no space (so its value keeps its type), else text whose `{$…}` parts are replaced.
 */
export function parseValue(text: string): { expression: RuntimeExpression } | { parts: Array<string | RuntimeExpression> } {
  return /^\$[A-Za-z]\S*$/.test(text) ? { expression: parseRuntimeExpression(text) } : { parts: parseEmbedded(text) };
}

/** Every runtime expression in a value of a workflow (strings anywhere inside it, read by `parseValue`). */
export function expressionsIn(value: unknown): RuntimeExpression[] {
  if (typeof value === 'string') {
    const parsed = parseValue(value);
    return 'expression' in parsed ? [parsed.expression] : parsed.parts.filter((p) => typeof p !== 'string');
  }
  if (Array.isArray(value)) return value.flatMap(expressionsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(expressionsIn);
  return [];
}

type Token = { kind: 'value'; value: unknown; at: number } | { kind: 'expression'; expression: RuntimeExpression; at: number } | { kind: 'op'; text: string; at: number };

function tokens(condition: string): Token[] {
  const reader = new Reader(condition);
  const out: Token[] = [];
  for (reader.match(SPACE); reader.at < condition.length; reader.match(SPACE)) {
    const at = reader.at;
    const quote = condition[at];
    if (quote === "'" || quote === '"') {
      const end = condition.indexOf(quote, at + 1);
      if (end < 0) reader.fail(`a closing ${quote}`);
      out.push({ kind: 'value', value: condition.slice(at + 1, end), at });
      reader.at = end + 1;
    } else if (condition[at] === '$' || condition.startsWith('{$', at)) {
      const curly = reader.eat('{');
      out.push({ kind: 'expression', expression: reader.expression(), at });
      if (curly) reader.expect('}');
    } else {
      const word = reader.match(/(?:true|false|null)\b/y);
      const number = word === undefined ? reader.match(NUMBER) : undefined;
      const op = word === undefined && number === undefined ? reader.match(OPERATOR) : undefined;
      if (word !== undefined) out.push({ kind: 'value', value: word === 'null' ? null : word === 'true', at });
      else if (number !== undefined) out.push({ kind: 'value', value: Number(number), at });
      else if (op !== undefined) out.push({ kind: 'op', text: op, at });
      else reader.fail('a value, a runtime expression or an operator');
    }
  }
  return out;
}

/** A simple condition, parsed once. */
export function parseCondition(condition: string): Condition {
  const list = tokens(condition);
  let i = 0;
  const fail = (expected: string): never => {
    throw new ExpressionSyntaxError(condition, list[i]?.at ?? condition.length, expected);
  };
  const isOp = (...ops: string[]): string | undefined => {
    const token = list[i];
    return token?.kind === 'op' && ops.includes(token.text) ? (i++, token.text) : undefined;
  };
  const primary = (): Condition => {
    if (isOp('(')) {
      const inner = or();
      return isOp(')') ? inner : fail('")"');
    }
    const token = list[i];
    if (token?.kind === 'value') return (i++, { kind: 'value', value: token.value });
    if (token?.kind === 'expression') return (i++, { kind: 'expression', expression: token.expression });
    return fail('a value or a runtime expression');
  };
  const unary = (): Condition => (isOp('!') ? { kind: 'not', operand: unary() } : comparison());
  const comparison = (): Condition => {
    const left = primary();
    const op = isOp('==', '!=', '<', '<=', '>', '>=');
    return op ? { kind: 'binary', op, left, right: primary() } : left;
  };
  const chain = (op: string, operand: () => Condition) => (): Condition => {
    let node = operand();
    while (isOp(op)) node = { kind: 'binary', op, left: node, right: operand() };
    return node;
  };
  const or = chain('||', chain('&&', unary));
  const tree = or();
  if (i < list.length) fail('an operator or the end of the condition');
  return tree;
}

function conditionExpressions(node: Condition): RuntimeExpression[] {
  if (node.kind === 'expression') return [node.expression];
  if (node.kind === 'not') return conditionExpressions(node.operand);
  return node.kind === 'binary' ? [...conditionExpressions(node.left), ...conditionExpressions(node.right)] : [];
}

/** A criterion's type: `simple` (the default), `regex`, `jsonpath` or another. */
export const criterionType = (criterion: Criterion): string => (typeof criterion.type === 'object' ? criterion.type.type : (criterion.type ?? 'simple'));

/** The runtime expressions a criterion reads: its context's, a simple condition's, the `{$…}` of a JSONPath (a regex has none). */
export function criterionExpressions(criterion: Criterion): RuntimeExpression[] {
  const context = criterion.context !== undefined ? [parseRuntimeExpression(criterion.context)] : [];
  const type = criterionType(criterion);
  if (type === 'simple') return [...context, ...conditionExpressions(parseCondition(criterion.condition))];
  return type === 'jsonpath' ? [...context, ...expressionsIn(criterion.condition)] : context;
}

/** The statuses a simple condition compares `$statusCode` with by `==` (`$statusCode == 200 || $statusCode == 408`). */
export function statusesCompared(condition: string): number[] {
  const visit = (node: Condition): number[] => {
    if (node.kind !== 'binary') return [];
    const sides = [node.left, node.right];
    const status = sides.find((s) => s.kind === 'value' && typeof s.value === 'number');
    if (node.op === '==' && status && sides.some((s) => s.kind === 'expression' && s.expression.root === '$statusCode')) return [(status as { value: number }).value];
    return [...visit(node.left), ...visit(node.right)];
  };
  return visit(parseCondition(condition));
}
