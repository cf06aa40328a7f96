// The one runtime-expression grammar (src/contract/runtime-expression.ts, issue 37): every root of
// the Arazzo 1.0.1 ABNF read into its typed value and written back the same, `{$…}` inside text,
// simple conditions, and one failure rule (an ExpressionSyntaxError naming the position) for each
// malformed case; the workflow checker reporting what the grammar refuses, the runner failing the
// step instead of ending the run; and a scan that fails if a second parser of expressions appears
// anywhere in the package's code (regexes, splits or prefix tests over `$steps.`, `$response.`, ...).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  criterionExpressions,
  ExpressionSyntaxError,
  expressionsIn,
  formatExpression,
  parseCondition,
  parseEmbedded,
  parseRuntimeExpression,
  parseValue,
  statusesCompared,
  type Criterion,
  type RuntimeExpression,
} from '../src/contract/runtime-expression.js';
import { checkWorkflows, formatWorkflowProblem } from '../src/contract/workflows.js';
import { WorkflowRunner } from '../src/workflows/arazzo-runner.js';
import { generatedDir, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';

const read = (file: string): JsonObject => JSON.parse(readFileSync(path.join(generatedDir, file), 'utf8')) as JsonObject;
const arazzo = read('workflows.arazzo.json');
const sources = (): Record<string, JsonObject> => ({ numbersApi: loadOpenApi(), mockControl: read('mock-control.json') });

const EXPRESSIONS: Array<[string, { given: string; want: RuntimeExpression }]> = [
  ['$url', { given: '$url', want: { root: '$url' } }],
  ['$method', { given: '$method', want: { root: '$method' } }],
  ['$statusCode', { given: '$statusCode', want: { root: '$statusCode' } }],
  ['a request header (a token: dots and dashes)', { given: '$request.header.X-Request.Id', want: { root: '$request', part: 'header', name: 'X-Request.Id' } }],
  ['a request query parameter', { given: '$request.query.starting_after', want: { root: '$request', part: 'query', name: 'starting_after' } }],
  ['a request path parameter', { given: '$request.path.id', want: { root: '$request', part: 'path', name: 'id' } }],
  ['the request body', { given: '$request.body', want: { root: '$request', part: 'body' } }],
  ['a request body field', { given: '$request.body#/user/uuid', want: { root: '$request', part: 'body', pointer: '/user/uuid' } }],
  ['a response header', { given: '$response.header.Retry-After', want: { root: '$response', part: 'header', name: 'Retry-After' } }],
  ['the response body', { given: '$response.body', want: { root: '$response', part: 'body' } }],
  ['the whole body by an empty pointer', { given: '$response.body#', want: { root: '$response', part: 'body', pointer: '' } }],
  ['a response body item, escaped segments', { given: '$response.body#/items/0/a~1b~0c', want: { root: '$response', part: 'body', pointer: '/items/0/a~1b~0c' } }],
  ['an input', { given: '$inputs.apiKey', want: { root: '$inputs', name: 'apiKey' } }],
  ['a field of an input', { given: '$inputs.customer#/firstName', want: { root: '$inputs', name: 'customer', pointer: '/firstName' } }],
  ["a child workflow's output", { given: '$outputs.registrationId', want: { root: '$outputs', name: 'registrationId' } }],
  ["a step's output", { given: '$steps.signIn.outputs.apiKey', want: { root: '$steps', stepId: 'signIn', part: 'outputs', name: 'apiKey' } }],
  ["a step's output with a pointer", { given: '$steps.list-numbers.outputs.items#/0/id', want: { root: '$steps', stepId: 'list-numbers', part: 'outputs', name: 'items', pointer: '/0/id' } }],
  ['an output key with dots (Arazzo: ^[a-zA-Z0-9.\\-_]+$)', { given: '$steps.a.outputs.x.y', want: { root: '$steps', stepId: 'a', part: 'outputs', name: 'x.y' } }],
  ["a workflow's input", { given: '$workflows.signUp.inputs.email', want: { root: '$workflows', workflowId: 'signUp', part: 'inputs', name: 'email' } }],
  ["a workflow's output", { given: '$workflows.signUp.outputs.apiKey#/x', want: { root: '$workflows', workflowId: 'signUp', part: 'outputs', name: 'apiKey', pointer: '/x' } }],
  ["a source's operation", { given: '$sourceDescriptions.numbersApi.listNumbers', want: { root: '$sourceDescriptions', source: 'numbersApi', name: 'listNumbers' } }],
  ["a source's dotted operationId", { given: '$sourceDescriptions.petstore.pets.get', want: { root: '$sourceDescriptions', source: 'petstore', name: 'pets.get' } }],
  ['a reusable input', { given: '$components.inputs.signUpInputs', want: { root: '$components', part: 'inputs', name: 'signUpInputs' } }],
  ['a reusable parameter', { given: '$components.parameters.apiKey', want: { root: '$components', part: 'parameters', name: 'apiKey' } }],
  ['a reusable success action', { given: '$components.successActions.done', want: { root: '$components', part: 'successActions', name: 'done' } }],
  ['a reusable failure action', { given: '$components.failureActions.retry.slow', want: { root: '$components', part: 'failureActions', name: 'retry.slow' } }],
  ["Respect's $faker: a UUID", { given: '$faker.string.uuid()', want: { root: '$faker', name: 'string.uuid' } }],
  ["Respect's $faker: an integer in a range", { given: '$faker.number.integer({min:600,max:989})', want: { root: '$faker', name: 'number.integer', args: { min: 600, max: 989 } } }],
];

describe.each(EXPRESSIONS)('%s', (_name, { given, want }) => {
  it('reads into its typed value', () => expect(parseRuntimeExpression(given)).toEqual(want));
  it('is written back the same', () => expect(formatExpression(want)).toBe(given));
});

const MALFORMED: Array<[string, { given: string; want: { position: number; expected: string } }]> = [
  ['no $', { given: 'steps.a.outputs.b', want: { position: 0, expected: '"$"' } }],
  ['an unknown root', { given: '$step.a.outputs.b', want: { position: 1, expected: '$url, $method' } }],
  ['a root with more after it', { given: '$statusCode2', want: { position: 11, expected: 'the end of the expression' } }],
  ['a root cut short', { given: '$steps', want: { position: 6, expected: '"."' } }],
  ['a step without outputs', { given: '$steps.signIn.apiKey', want: { position: 14, expected: 'outputs' } }],
  ['a step output with no name', { given: '$steps.signIn.outputs.', want: { position: 22, expected: 'a name' } }],
  ['a workflow part that is neither', { given: '$workflows.w.steps.x', want: { position: 13, expected: 'inputs, outputs' } }],
  ['a request part that is none', { given: '$request.cookie.x', want: { position: 9, expected: 'header, query, path, body' } }],
  ['a header with no name', { given: '$response.header.', want: { position: 17, expected: 'a header name' } }],
  ['a pointer with a bad escape', { given: '$response.body#/a~2', want: { position: 17, expected: '~0 or ~1' } }],
  ['a pointer that is not one', { given: '$response.body#a', want: { position: 15, expected: 'the end of the expression' } }],
  ['a space inside', { given: '$inputs.api Key', want: { position: 11, expected: 'the end of the expression' } }],
  ['an input read as a chain', { given: '$inputs.a.b', want: { position: 9, expected: 'the end of the expression' } }],
  ['an unknown component kind', { given: '$components.schemas.Error', want: { position: 12, expected: 'inputs, parameters, successActions, failureActions' } }],
  ['a source with no operation', { given: '$sourceDescriptions.numbersApi', want: { position: 30, expected: '"."' } }],
  ['nothing', { given: '', want: { position: 0, expected: '"$"' } }],
  ['a $faker generator this package does not make', { given: '$faker.string.email()', want: { position: 7, expected: 'string.uuid or number.integer' } }],
  ['a $faker generator not called', { given: '$faker.string.uuid', want: { position: 18, expected: '"("' } }],
  ['$faker arguments not closed', { given: '$faker.number.integer({min:1', want: { position: 28, expected: '"," or "}"' } }],
  ['a $faker argument that is no number', { given: "$faker.number.integer({min:'x'})", want: { position: 27, expected: 'a number' } }],
];

describe.each(MALFORMED)('malformed: %s', (_name, { given, want }) => {
  it('is an ExpressionSyntaxError naming the position and what was expected there', () => {
    const error = (() => {
      try {
        parseRuntimeExpression(given);
      } catch (e) {
        return e;
      }
    })() as ExpressionSyntaxError;
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    expect({ position: error.position, text: error.text }).toEqual({ position: want.position, text: given });
    expect(error.message).toContain(`expected ${want.expected}`);
    expect(error.message).toContain(`at position ${want.position} of "${given}"`);
  });
});

const VALUES: Array<[string, { given: string; want: ReturnType<typeof parseValue> }]> = [
  ['a whole expression keeps its type', { given: '$inputs.topUp', want: { expression: { root: '$inputs', name: 'topUp' } } }],
  ['a literal', { given: '+14155550123', want: { parts: ['+14155550123'] } }],
  ['a price is a literal, not an expression', { given: '$5', want: { parts: ['$5'] } }],
  ['text with a space is text', { given: '$5 off today', want: { parts: ['$5 off today'] } }],
  ['the key in a header', { given: 'Bearer {$inputs.apiKey}', want: { parts: ['Bearer ', { root: '$inputs', name: 'apiKey' }] } }],
  ['two embedded, text between', { given: '{$steps.a.outputs.b}-{$response.body#/id}!', want: { parts: [{ root: '$steps', stepId: 'a', part: 'outputs', name: 'b' }, '-', { root: '$response', part: 'body', pointer: '/id' }, '!'] } }],
  ['braces without $ are text', { given: '{"a": 1}', want: { parts: ['{"a": 1}'] } }],
  ['a fresh address, as a recording writes it', { given: 'recording-{$faker.string.uuid()}@example.com', want: { parts: ['recording-', { root: '$faker', name: 'string.uuid' }, '@example.com'] } }],
  ['a JSONPath with an embedded expression', { given: '$[?@.id == {$steps.s.outputs.id}]', want: { parts: ['$[?@.id == ', { root: '$steps', stepId: 's', part: 'outputs', name: 'id' }, ']'] } }],
];

describe.each(VALUES)('a value: %s', (_name, { given, want }) => {
  it('reads as Arazzo (and Respect) read a value', () => expect(parseValue(given)).toEqual(want));
});

describe.each([
  ['a whole value that is no expression', { given: '$inputs.', position: 8 }],
  ['an embedded expression not closed', { given: 'Bearer {$inputs.apiKey', position: 22 }],
  ['an embedded expression with a bad root', { given: 'x {$input.apiKey}', position: 4 }],
  ['an embedded expression with more inside', { given: '{$inputs.a b}', position: 10 }],
])('a malformed value: %s', (_name, { given, position }) => {
  it('fails at its position', () => expect(() => parseValue(given)).toThrow(expect.objectContaining({ name: 'ExpressionSyntaxError', position, text: given })));
});

describe('simple conditions', () => {
  it('read into a tree whose operands are typed expressions', () => {
    expect(parseCondition("$statusCode == 200 && !($response.body#/error == 'x' || {$inputs.n} > 1.5)")).toEqual({
      kind: 'binary',
      op: '&&',
      left: { kind: 'binary', op: '==', left: { kind: 'expression', expression: { root: '$statusCode' } }, right: { kind: 'value', value: 200 } },
      right: {
        kind: 'not',
        operand: {
          kind: 'binary',
          op: '||',
          left: { kind: 'binary', op: '==', left: { kind: 'expression', expression: { root: '$response', part: 'body', pointer: '/error' } }, right: { kind: 'value', value: 'x' } },
          right: { kind: 'binary', op: '>', left: { kind: 'expression', expression: { root: '$inputs', name: 'n' } }, right: { kind: 'value', value: 1.5 } },
        },
      },
    });
  });

  it.each([
    ['$statusCode === 200', 14],
    ['($statusCode == 200', 19],
    ['$statusCode == ', 15],
    ["$response.body#/a == 'open", 21],
    ['$response.body#/a == $step.x', 22],
    ['{$inputs.a == 1', 10],
    ['$inputs.a == 1 1', 15],
    ['$inputs.a.b == 1', 9],
  ])('%s fails at position %i', (condition, position) => {
    expect(() => parseCondition(condition)).toThrow(expect.objectContaining({ position, text: condition }));
  });

  it('names the statuses compared with $statusCode by ==', () => {
    expect(statusesCompared('$statusCode == 200 || $statusCode == 408')).toEqual([200, 408]);
    expect(statusesCompared('200 == $statusCode && $response.body#/n == 201')).toEqual([200]);
    expect(statusesCompared('$statusCode != 500 && !($statusCode == 404)')).toEqual([]);
  });

  it.each([
    ['simple: its operands', { condition: '$response.body#/a == $steps.s.outputs.b' }, ['$response.body#/a', '$steps.s.outputs.b']],
    ['regex: its context only', { context: '$response.body#/id', condition: '^\\S+$', type: 'regex' }, ['$response.body#/id']],
    ['jsonpath: its context and the {$…} inside', { context: '$response.body', condition: '$[?@.id == {$inputs.id}]', type: { type: 'jsonpath', version: 'draft-goessner-dispatch-jsonpath-00' } }, ['$response.body', '$inputs.id']],
  ] as Array<[string, Criterion, string[]]>)('a criterion reads: %s', (_name, criterion, want) => {
    expect(criterionExpressions(criterion).map(formatExpression)).toEqual(want);
  });
});

describe("the contract's workflows", () => {
  const strings = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(strings) : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

  it('every expression they hold reads, and is written back the same', () => {
    const whole = strings(arazzo.workflows).filter((s) => /^\$[A-Za-z]\S*$/.test(s));
    expect(whole.length).toBeGreaterThan(300);
    for (const text of whole) expect(formatExpression(parseRuntimeExpression(text)), text).toBe(text);
    expect(expressionsIn(arazzo.workflows).length).toBeGreaterThan(300);
  });

  it('the checker (the lint) reports an expression the grammar refuses, with its place and position', () => {
    const broken = structuredClone(arazzo);
    const signUp = (broken.workflows as JsonObject[]).find((w) => w.workflowId === 'signUpNewAccount')!;
    const step = (id: string): JsonObject => (signUp.steps as JsonObject[]).find((s) => s.stepId === id)!;
    step('registerNumber').requestBody.payload.phoneNumber = '$steps.newAccountKey.output.apiKey';
    step('registerNumber').successCriteria[0].condition = '$statusCode === 202';
    step('startOver').operationId = '$sourceDescription.mockControl.mockReset';
    const problems = checkWorkflows(broken, sources()).map(formatWorkflowProblem).join('\n');
    expect(problems).toMatch(/registerNumber: expected outputs at position 21 of "\$steps\.newAccountKey\.output\.apiKey", found "output\.apiKe" \(at #\/workflows\/\d+\/steps\/\d+\/requestBody\/payload\)/);
    expect(problems).toMatch(/registerNumber: expected a value or a runtime expression at position 14 of "\$statusCode === 202".* \(at #\/workflows\/\d+\/steps\/\d+\/successCriteria\/0\)/);
    expect(problems).toMatch(/startOver: operationId expected \$url, .* at position 1 of "\$sourceDescription\.mockControl\.mockReset"/);
  });

  it('the checker (the lint) reports an expression that names what the document does not have, by root', () => {
    const broken = structuredClone(arazzo);
    const signUp = (broken.workflows as JsonObject[]).find((w) => w.workflowId === 'signUpNewAccount')!;
    const payload = (signUp.steps as JsonObject[]).find((s) => s.stepId === 'registerNumber')!.requestBody.payload;
    Object.assign(payload, {
      registrationId: 'r-{$workflows.noSuchFlow.outputs.id}',
      phoneNumber: '$workflows.signUpNewAccount.inputs.nothing',
      brand: '$components.inputs.nothing',
      source: '$sourceDescriptions.nowhere.listNumbers',
    });
    const problems = checkWorkflows(broken, sources()).map(formatWorkflowProblem).join('\n');
    expect(problems).toMatch(/reads \$workflows\.noSuchFlow\.outputs\.id, which names no workflow of the document/);
    expect(problems).toMatch(/reads \$workflows\.signUpNewAccount\.inputs\.nothing, which workflow signUpNewAccount does not take/);
    expect(problems).toMatch(/reads \$components\.inputs\.nothing, which components\.inputs does not define/);
    expect(problems).toMatch(/reads \$sourceDescriptions\.nowhere\.listNumbers, which names no source description/);
  });

  it('the runner fails a step it cannot read, naming the position, and does not end the run by throwing', async () => {
    const document = {
      workflows: [
        {
          workflowId: 'flow',
          steps: [{ stepId: 'read', operationId: '$sourceDescriptions.numbersApi.getAccount', parameters: [{ name: 'Authorization', in: 'header', value: 'Bearer {$inputs.apiKey' }] }],
        },
      ],
    };
    const sent: unknown[] = [];
    const runner = new WorkflowRunner({ arazzo: document, operations: { numbersApi: new Map() }, isMock: true, hiddenInputs: {}, call: async (request) => (sent.push(request), { status: 200, headers: {}, body: {} }) });
    const run = await runner.run('flow', {});
    expect(sent).toEqual([]);
    expect(run).toMatchObject({ passed: false, steps: [{ stepId: 'read', outcome: 'failed', notes: ['expected "}" at position 22 of "Bearer {$inputs.apiKey", found the end'] }] });
  });

  it('the runner makes a $faker value anew at each run, and a later step carries it by $request', async () => {
    const document = {
      workflows: [
        {
          workflowId: 'flow',
          steps: [
            { stepId: 'first', operationId: '$sourceDescriptions.numbersApi.signUp', requestBody: { payload: { email: 'recording-{$faker.string.uuid()}@example.com', n: '$faker.number.integer({min:600,max:601})' } }, outputs: { email: '$request.body#/email' } },
            { stepId: 'again', operationId: '$sourceDescriptions.numbersApi.signUp', parameters: [{ name: 'Idempotency-Key', in: 'header', value: '$faker.string.uuid()' }], requestBody: { payload: { email: '$steps.first.outputs.email' } }, outputs: { key: '$request.header.idempotency-key' } },
            { stepId: 'third', operationId: '$sourceDescriptions.numbersApi.signUp', parameters: [{ name: 'Idempotency-Key', in: 'header', value: '$steps.again.outputs.key' }] },
          ],
        },
      ],
    };
    const sent: Array<{ body?: JsonObject; values: JsonObject }> = [];
    const runner = new WorkflowRunner({ arazzo: document, operations: { numbersApi: new Map() }, isMock: true, hiddenInputs: {}, call: async (request) => (sent.push(request as never), { status: 200, headers: {}, body: {} }) });
    await runner.run('flow', {});
    await runner.run('flow', {});
    const [first, second] = [sent.slice(0, 3), sent.slice(3)];
    expect(first[0]!.body!.email).toMatch(/^recording-[0-9a-f-]{36}@example\.com$/);
    expect([600, 601]).toContain(first[0]!.body!.n);
    expect(first[1]!.body!.email).toBe(first[0]!.body!.email);
    expect(first[2]!.values['Idempotency-Key']).toBe(first[1]!.values['Idempotency-Key']);
    expect(second[0]!.body!.email).not.toBe(first[0]!.body!.email);
    expect(second[1]!.values['Idempotency-Key']).not.toBe(first[1]!.values['Idempotency-Key']);
  });
});

// One parser: code outside the grammar's module that reads expression text by itself. Each rule
// names a way the five parsers this replaced did it (two splits, per-root regexes, a grammar
// regex, a tokenizer) and is shown catching it below.
const ROOTS = 'url|method|statusCode|request|response|inputs|outputs|steps|workflows|sourceDescriptions|components|faker';
const QUOTED_ROOT = `['"\`]\\$(?:${ROOTS})`;
const SECOND_PARSER: Array<[string, RegExp]> = [
  ['a regex naming a root', new RegExp(`\\\\\\$(?:${ROOTS})\\b`)],
  ['a regex for any expression', /\\\$[[(]/],
  ['a regex for {$…} inside text', /\\\{\(?\\\$/],
  ['a string method over expression text', new RegExp(`\\.(?:startsWith|endsWith|includes|indexOf|lastIndexOf|split|replace|replaceAll|match|search)\\(\\s*${QUOTED_ROOT}`)],
  ["the length of an expression's prefix", new RegExp(`${QUOTED_ROOT}[.#][^'"\`]*['"\`]\\.length`)],
  ['expression text compared (not a parsed root)', new RegExp(`(?<!\\.root\\s*)(?<![!=])[!=]==?\\s*${QUOTED_ROOT}`)],
];
/** A file that names a root in a string and splits text by `#` or `.`: the two `split` parsers. */
const splitsExpressions = (text: string): boolean => new RegExp(QUOTED_ROOT).test(text) && /\.split\(\s*['"`][#.]['"`]\s*\)/.test(text);
const secondParser = (text: string): string[] => [...SECOND_PARSER.filter(([, rule]) => rule.test(text)).map(([name]) => name), ...(splitsExpressions(text) ? ['a split of expression text'] : [])];

describe('one runtime-expression parser', () => {
  it.each([
    ['the runner and the words: two splits', "const [head, pointer] = expression.split('#');\nif (head === '$statusCode') return status;", ['expression text compared (not a parsed root)', 'a split of expression text']],
    ['a prefix test', "if (head.startsWith('$response.header.')) return headers[head.slice('$response.header.'.length)];", ['a string method over expression text', "the length of an expression's prefix"]],
    ['the per-root regexes', 'if ((m = /^\\$inputs\\.([\\w-]+)$/.exec(expression))) return m[1];', ['a regex naming a root']],
    ['a $sourceDescriptions variant', "const match = /^\\$sourceDescriptions\\.(\\w+)\\.(.+)$/.exec(String(step.operationId ?? ''));", ['a regex naming a root']],
    ['the grammar regex', 'const EXPRESSION = /\\$(?:response\\.body(?:#(?:\\/[\\w-]*)*)?|statusCode|url)/g;', ['a regex for any expression']],
    ["the condition's tokenizer", 'const EXPRESSION = /\\$[A-Za-z_][\\w.-]*(?:#[\\w/~.-]*)?/y;', ['a regex for any expression']],
    ['embedded expressions', 'text.replace(/\\{(\\$[^{}]+)\\}/g, (all, e) => evaluate(e));', ['a regex for any expression', 'a regex for {$…} inside text']],
    ['a search in JSON text', 'text(step).includes(`$steps.${id}.outputs.${name}`)', ['a string method over expression text']],
    ['a typed root compared', "if (e.root === '$steps') return e.stepId;", []],
    ['an expression written', 'return formatExpression({ root: \'$inputs\', name });', []],
  ])('the scan catches %s', (_name, code, want) => expect(secondParser(code)).toEqual(want));

  // Source only: dist/ holds what the packaging tests compile from it, at any moment of a run.
  it('no code of the package parses runtime expressions but src/contract/runtime-expression.ts', () => {
    const module = path.join('src', 'contract', 'runtime-expression.ts');
    const files = ['src', 'conformance', 'scripts', 'docs/build', 'bin', 'packages'].flatMap((dir) =>
      (readdirSync(path.join(repoRoot, dir), { recursive: true }) as string[])
        .map((file) => path.join(dir, file))
        .filter((file) => /\.(?:ts|mts|mjs|js)$/.test(file) && !file.split(path.sep).some((part) => part === 'node_modules' || part === 'dist') && file !== module),
    );
    expect(files.length).toBeGreaterThan(150);
    const found = files.flatMap((file) => secondParser(readFileSync(path.join(repoRoot, file), 'utf8')).map((rule) => `${file}: ${rule}`));
    expect(found).toEqual([]);
  });
});
