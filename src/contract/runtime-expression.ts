// Arazzo 1.0.1 runtime expressions (`$steps.signIn.outputs.apiKey`, `$response.body#/id`), the
// `{$…}` they make inside text, and the simple conditions of criteria, read by one grammar into
// typed values: the runner evaluates them, the workflow checker lints them, the recorder writes
// them, the summary, the replays and the docs read them. Redocly Respect keeps one grammar for its
// evaluator and its linter (respect-core's abnf-parser.pegjs); this is the Arazzo ABNF as a small
// recursive-descent reader. Names are what Arazzo asks ids and keys to match (`[A-Za-z0-9_-]`, and
// `.` inside output, component, operation and parameter names); a JSON pointer's segments are `[A-Za-z0-9_.-]`
// with `~0`/`~1`, characters no condition uses for itself. Beside Arazzo's roots, the two
// generators of Respect's `$faker` that a recording writes for a value the service takes once
// (`$faker.string.uuid()`, `$faker.number.integer({min:600,max:989})`): Respect makes a new one at
// each run, and so does this package's runner. One failure rule: text the grammar does not read
// is an `ExpressionSyntaxError` naming the position. Pure and browser-safe.

export type RuntimeExpression =
  | { root: '$url' | '$method' | '$statusCode' }
  | { root: '$request' | '$response'; part: 'header' | 'query' | 'path'; name: string }
  | { root: '$request' | '$response'; part: 'body'; pointer?: string }
  | { root: '$inputs' | '$outputs'; name: string; pointer?: string }
  | { root: '$steps'; stepId: string; part: 'outputs'; name: string; pointer?: string }
  | { root: '$workflows'; workflowId: string; part: 'inputs' | 'outputs'; name: string; pointer?: string }
  | { root: '$sourceDescriptions'; source: string; name: string }
  | { root: '$components'; part: 'inputs' | 'parameters' | 'successActions' | 'failureActions'; name: string }
  | { root: '$faker'; name: FakerName; args?: Record<string, number> };

/** The `$faker` generators read (Redocly Respect has more; a recording writes only these). */
export const FAKER_NAMES = ['string.uuid', 'number.integer'] as const;
export type FakerName = (typeof FAKER_NAMES)[number];

/** A simple condition (Arazzo's Criterion Object): literals, expressions, `== != < <= > >=`, `! && ||`, parentheses. */
export type Condition = { kind: 'value'; value: unknown } | { kind: 'expression'; expression: RuntimeExpression } | { kind: 'not'; operand: Condition } | { kind: 'binary'; op: string; left: Condition; right: Condition };

/** A Criterion Object: a condition of a `type` (simple when none), over a `context` expression for a regex or a JSONPath. */
export type Criterion = { condition: string; context?: string; type?: string | { type: string; version?: string } };

export class ExpressionSyntaxError extends Error {
  override readonly name = 'ExpressionSyntaxError';

  constructor(
    readonly text: string,
    readonly position: number,
    expected: string,
  ) {
    super(`expected ${expected} at position ${position} of "${text}", found ${position < text.length ? `"${text.slice(position, position + 12)}"` : 'the end'}`);
  }
}

const NAME = /[A-Za-z0-9_-]+/y;
const DOTTED = /[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/y;
const TOKEN = /[!#$%&'*+.^_`|~A-Za-z0-9-]+/y;
const POINTER = /(?:\/(?:[A-Za-z0-9_.-]|~[01])*)*/y;
const WORD = /[A-Za-z]+/y;
const SPACE = /\s+/y;
const STRING = /'[^']*'|"[^"]*"/y;
const LITERAL = /(?:true|false|null)\b|-?(?:0|[1-9]\d*)(?:\.\d+)?/y;
const OPERATOR = /==|!=|<=|>=|&&|\|\||[<>!()]/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;

/** A cursor over `text`: each read takes what matches at the cursor, or fails there naming what it expected. */
class Reader {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}

  fail(expected: string): never {
    throw new ExpressionSyntaxError(this.text, this.at, expected);
  }

  /** What a sticky `pattern` or a literal matches at the cursor, taken, or undefined. */
  take(pattern: RegExp | string): string | undefined {
    if (pattern instanceof RegExp) pattern.lastIndex = this.at;
    const found = typeof pattern === 'string' ? (this.text.startsWith(pattern, this.at) ? pattern : undefined) : pattern.exec(this.text)?.[0];
    if (found) this.at += found.length;
    return found;
  }

  need(pattern: RegExp | string, expected = `"${String(pattern)}"`): string {
    return this.take(pattern) || this.fail(expected);
  }

  /** A `.` and a name, of the characters `pattern` allows. */
  name(pattern = NAME, expected = 'a name'): string {
    this.need('.');
    return this.need(pattern, expected);
  }

  /** A `.` and one of `words`. */
  part<T extends string>(...words: T[]): T {
    this.need('.');
    const word = this.take(WORD) ?? '';
    if ((words as string[]).includes(word)) return word as T;
    this.at -= word.length;
    return this.fail(words.join(', '));
  }

  /** An optional `#` and JSON pointer. */
  pointer(): { pointer?: string } {
    if (!this.take('#')) return {};
    const pointer = this.take(POINTER) ?? '';
    return this.text[this.at] === '~' ? this.fail('~0 or ~1') : { pointer };
  }

  /** A `$faker` generator's arguments, as Respect writes them: `()` or `({min: 1, max: 9})` (numbers: the two generators read take no other). */
  fakerArguments(): Record<string, number> | undefined {
    this.need('(');
    const args: Record<string, number> = {};
    if (this.take('{')) {
      do {
        this.take(SPACE);
        if (this.text[this.at] === '}') break; // `{}`, or a trailing comma
        const key = this.need(NAME, 'an argument name');
        this.take(SPACE);
        this.need(':');
        this.take(SPACE);
        args[key] = Number(this.need(NUMBER, 'a number'));
        this.take(SPACE);
      } while (this.take(','));
      this.need('}', '"," or "}"');
    }
    this.need(')');
    return Object.keys(args).length > 0 ? args : undefined;
  }

  /** One runtime expression from the cursor, to where the grammar ends (the fields of each are read in order). */
  expression(): RuntimeExpression {
    this.need('$');
    const root = `$${this.take(WORD) ?? ''}`;
    if (root === '$url' || root === '$method' || root === '$statusCode') return { root };
    if (root === '$request' || root === '$response') {
      const part = this.part('header', 'query', 'path', 'body');
      return part === 'body' ? { root, part, ...this.pointer() } : { root, part, name: part === 'header' ? this.name(TOKEN, 'a header name') : this.name(DOTTED) };
    }
    if (root === '$inputs' || root === '$outputs') return { root, name: this.name(root === '$inputs' ? NAME : DOTTED), ...this.pointer() };
    if (root === '$steps') return { root, stepId: this.name(), part: this.part('outputs'), name: this.name(DOTTED), ...this.pointer() };
    if (root === '$workflows') {
      const workflowId = this.name();
      const part = this.part('inputs', 'outputs');
      return { root, workflowId, part, name: this.name(part === 'inputs' ? NAME : DOTTED), ...this.pointer() };
    }
    if (root === '$sourceDescriptions') return { root, source: this.name(), name: this.name(DOTTED) };
    if (root === '$components') return { root, part: this.part('inputs', 'parameters', 'successActions', 'failureActions'), name: this.name(DOTTED) };
    if (root === '$faker') {
      const start = this.at + 1;
      const name = this.name(DOTTED) as FakerName;
      if (!FAKER_NAMES.includes(name)) {
        this.at = start;
        return this.fail(FAKER_NAMES.join(' or '));
      }
      const args = this.fakerArguments();
      return { root, name, ...(args ? { args } : {}) };
    }
    this.at -= root.length - 1;
    return this.fail('$url, $method, $statusCode, $request, $response, $inputs, $outputs, $steps, $workflows, $sourceDescriptions, $components or $faker');
  }
}

/** `text`, which must be one runtime expression and nothing else. */
export function parseRuntimeExpression(text: string): RuntimeExpression {
  const reader = new Reader(text);
  const expression = reader.expression();
  return reader.at < text.length ? reader.fail('the end of the expression') : expression;
}

/** The expression as Arazzo writes it (`parseRuntimeExpression` reads it back the same). */
export function formatExpression(e: RuntimeExpression): string {
  if (e.root === '$faker') return `$faker.${e.name}(${e.args ? `{${Object.entries(e.args).map(([k, v]) => `${k}:${v}`).join(',')}}` : ''})`;
  const { source, stepId, workflowId, part, name, pointer } = e as Partial<Record<'source' | 'stepId' | 'workflowId' | 'part' | 'name' | 'pointer', string>>;
  return [e.root, source ?? stepId ?? workflowId, part, name].filter((s) => s !== undefined).join('.') + (pointer !== undefined ? `#${pointer}` : '');
}

/** Text with `{$…}` parts: literal pieces and the expressions between them. */
export function parseEmbedded(text: string): Array<string | RuntimeExpression> {
  const parts: Array<string | RuntimeExpression> = [];
  const reader = new Reader(text);
  for (let open = text.indexOf('{$'); open >= 0; open = text.indexOf('{$', reader.at)) {
    if (open > reader.at) parts.push(text.slice(reader.at, open));
    reader.at = open + 1;
    parts.push(reader.expression());
    reader.need('}');
  }
  if (reader.at < text.length) parts.push(text.slice(reader.at));
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
  if (Array.isArray(value)) return value.flatMap(expressionsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(expressionsIn);
  if (typeof value !== 'string') return [];
  const parsed = parseValue(value);
  return 'expression' in parsed ? [parsed.expression] : parsed.parts.filter((p) => typeof p !== 'string');
}

/** A simple condition, parsed once. */
export function parseCondition(condition: string): Condition {
  const reader = new Reader(condition);
  const op = (...ops: string[]): string | undefined => {
    reader.take(SPACE);
    const start = reader.at;
    const found = reader.take(OPERATOR);
    if (found && ops.includes(found)) return found;
    reader.at = start;
    return undefined;
  };
  const primary = (): Condition => {
    if (op('(')) {
      const inner = or();
      return op(')') ? inner : reader.fail('")"');
    }
    if (condition.startsWith('$', reader.at) || condition.startsWith('{$', reader.at)) {
      const curly = reader.take('{');
      const expression = reader.expression();
      if (curly) reader.need('}');
      return { kind: 'expression', expression };
    }
    const text = reader.take(STRING) ?? reader.need(LITERAL, 'a value or a runtime expression');
    return { kind: 'value', value: /^['"]/.test(text) ? text.slice(1, -1) : JSON.parse(text) };
  };
  const comparison = (): Condition => {
    const left = primary();
    const compare = op('==', '!=', '<', '<=', '>', '>=');
    return compare ? { kind: 'binary', op: compare, left, right: primary() } : left;
  };
  const unary = (): Condition => (op('!') ? { kind: 'not', operand: unary() } : comparison());
  const chain = (joiner: string, operand: () => Condition) => (): Condition => {
    let node = operand();
    while (op(joiner)) node = { kind: 'binary', op: joiner, left: node, right: operand() };
    return node;
  };
  const or = chain('||', chain('&&', unary));
  const tree = or();
  reader.take(SPACE);
  return reader.at < condition.length ? reader.fail('an operator or the end of the condition') : tree;
}

const operands = (node: Condition): Condition[] => (node.kind === 'binary' ? [node.left, node.right] : node.kind === 'not' ? [node.operand] : []);
const conditionExpressions = (node: Condition): RuntimeExpression[] => (node.kind === 'expression' ? [node.expression] : operands(node).flatMap(conditionExpressions));

/** A criterion's type: `simple` (the default), `regex`, `jsonpath` or another. */
export const criterionType = (criterion: Criterion): string => (typeof criterion.type === 'object' ? criterion.type.type : (criterion.type ?? 'simple'));

/** The runtime expressions a criterion reads: its context's, a simple condition's, the `{$…}` of a JSONPath (a regex has none). */
export function criterionExpressions(criterion: Criterion): RuntimeExpression[] {
  const context = criterion.context !== undefined ? [parseRuntimeExpression(criterion.context)] : [];
  const type = criterionType(criterion);
  return [...context, ...(type === 'simple' ? conditionExpressions(parseCondition(criterion.condition)) : type === 'jsonpath' ? expressionsIn(criterion.condition) : [])];
}

/** The statuses a simple condition compares `$statusCode` with by `==`, outside a `!` (`$statusCode == 200 || $statusCode == 408`). */
export function statusesCompared(condition: string): number[] {
  const visit = (node: Condition): number[] => {
    if (node.kind !== 'binary') return [];
    const status = [node.left, node.right].find((side) => side.kind === 'value' && typeof side.value === 'number');
    const compared = node.op === '==' && [node.left, node.right].some((side) => side.kind === 'expression' && side.expression.root === '$statusCode');
    return compared && status?.kind === 'value' ? [status.value as number] : [...visit(node.left), ...visit(node.right)];
  };
  return visit(parseCondition(condition));
}
