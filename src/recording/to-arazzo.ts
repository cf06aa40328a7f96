// A recording (recorder.ts) as an Arazzo 1.0.1 document, the format of the contract's own
// workflows (spec/workflows/), so Redocly Respect and this package's runner
// (src/workflows/arazzo-runner.ts) both replay it. The rules, each tolerant by construction:
// 1. The requests in order, each with the values it sent (parameters, declared headers, body).
// 2. A value the mock issued (an id, `verificationId`, `clientSecret`, a number, a cursor) that a
//    later request sent back is that later request's runtime expression, `$steps.<id>.outputs.<name>`,
//    read from the first answer that showed it; the issuing step checks the field is there and
//    has the value's format (an id: present and unspaced; a number: E.164; a time: ISO 8601),
//    never its literal.
// 3. Each later answer that shows a carried value must show the same one (equality).
// 4. The key is the input `apiKey` (`Bearer {$inputs.apiKey}`), or, after a recorded sign-up, the
//    key its verify step answered (`Bearer {$steps.verifyPhoneNumber.outputs.apiKey}`); a sign-up
//    code is an input whose default is the contract's documented test value when it was that;
//    nothing secret is written. The key sent inside a value (a webhook URL's query, a message's
//    text, a path) is that same input inside it (`…?token={$inputs.apiKey}`); any other string
//    of the key's form is masked as the account shows keys (part 5.3), wherever it is.
// 5. Success is the recorded status (a long poll that timed out also passes when an event came);
//    Respect also checks every answer against the contract's schema, and the suite's replay does.
// 6. The mock's control surface (a clock move, a checkout completed, the wallet) is a mock-only
//    step (`mockControl` source, description "Mock only"): a runner leaves it out on a deployment.
// 7. A value the contract says the service takes once (`x-unique`: a sign-up's email, the holder's
//    number, an `Idempotency-Key`) is a fresh one at each run, written as Respect's `$faker`
//    (freshValue) and carried to later steps from the step's own request (`$request.body#/email`),
//    so the recording replays again and again on one deployment; a documented test value stays.
// Values the mock issued that no request sent back are never asserted. Pure and deterministic:
// the same requests give the same document, byte for byte. Browser-safe.
import { effectsOf, harmOf, type Effects } from '../contract/effects.js';
import { escapePointerSegment, resolveRef, stringLeaves, valueAt, type JsonObject } from '../contract/json-pointer.js';
import { formatExpression } from '../contract/runtime-expression.js';
import { findOperation, type ResolvedOperation } from '../contract/workflows.js';
import { parseJsonText, type RecordedExchange, type Recording } from './recorder.js';
import { freshValue, requestExpression, uniqueAt, type RequestPlace } from './unique-values.js';
import { redactor } from '../request/redact.js';

export interface ArazzoTarget {
  /** The service's description (generated/openapi.json), parsed. */
  document: JsonObject;
  /** The control surface's description (generated/mock-control.json), parsed. */
  controlDocument: JsonObject;
  /**
   * The mock at whose address a recording names the two descriptions (it serves them,
   * `GET /__mock/descriptions/{file}`): its base URL, or a function that gives it once it is known.
   * By default the address the control description names (`servers`: the local mock).
   */
  mockUrl?: string | (() => string);
}

/** Where a recording names the descriptions: at the mock that serves them, so Respect reads them from any folder the recording is moved to. */
function descriptionUrls(target: ArazzoTarget): { numbersApi: string; mockControl: string } {
  const base = (typeof target.mockUrl === 'function' ? target.mockUrl() : target.mockUrl) ?? String(target.controlDocument.servers?.[0]?.url ?? '');
  const served = findOperation({ mockControl: target.controlDocument }, 'mockControl', 'mockGetDescription')?.path ?? '/__mock/descriptions/{file}';
  const at = (file: string): string => `${base.replace(/\/+$/, '')}${served.replace('{file}', file)}`;
  return { numbersApi: at('openapi.json'), mockControl: at('mock-control.json') };
}

/** Respect reads JSON pointers made of `[\w/-]` only: a value elsewhere is not carried. */
const RESPECT_POINTER = /^(?:\/[\w-]*)*$/;
const E164 = /^\+[1-9]\d{1,14}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** Field names whose values the service issues (ids, secrets of a checkout, cursors, numbers). */
const ISSUED_FIELD = /^(?:id|.*Id|.*Ids|clientSecret|.*[Cc]ursor|number|apiKey|url|.*Url)$/;
/** Ids in the style the service issues (`msg_01JD…`, `pn_000001`). */
const ISSUED_ID = /^[a-z]{1,12}_[A-Za-z0-9]{4,}$/;
/** Request fields that carry a code a person read (email or SMS): an input, never written. */
const SECRET_FIELD = /^(?:code|password|secret|token|cardNumber|cvc)$/;
/** A text with every key of the key's form masked (part 5.3's preview). */
const otherKeysMasked = redactor([]);
/** Equality checks kept per step at most, so a long list does not make a long step. */
const MAX_EQUALITIES = 20;

const ARAZZO_KEY_INPUT = {
  type: 'string',
  format: 'password',
  description: 'The account\'s API key (part 5.1). Never written in a recording; on the mock any `sk_live_` key opens an account of its own.',
};

/** Where a request sent a value: the field that held it, and its place in the request (a body pointer Respect reads, or a parameter). */
interface Place {
  field: string;
  at?: RequestPlace;
}

interface Origin {
  step: number;
  pointer: string;
  field: string;
  /** For an item of a list: the same field of the list's first item, as recorded. */
  first?: unknown;
}

function looksIssued(field: string, value: string): boolean {
  if (value.length < 3 || /\s/.test(value)) return false;
  return ISSUED_FIELD.test(field) || ISSUED_ID.test(value) || E164.test(value) || TIMESTAMP.test(value);
}

/** The format a carried value is checked by on the step that issued it. */
function formatOf(value: string): string {
  if (E164.test(value)) return '^\\+[1-9][0-9]{1,14}$';
  if (TIMESTAMP.test(value)) return '^[0-9]{4}-[0-9]{2}-[0-9]{2}T';
  return '^\\S+$';
}

/**
 * A timestamp carried from an item of a list (a cursor, `starting_after`): the list is in the
 * order the recording saw, its first item against this one (newest first stays newest first),
 * so a page in another order fails the step that the client paged from.
 */
function listOrder(origin: Origin, value: string): JsonObject[] {
  const match = /^(.*)\/(\d+)\/([\w-]+)$/.exec(origin.pointer);
  if (!match || !TIMESTAMP.test(value) || match[2] === '0') return [];
  const [, list, , field] = match as unknown as [string, string, string, string];
  if (typeof origin.first !== 'string' || origin.first === value) return [];
  return [{ condition: `${answerField(`${list}/0/${field}`)} ${origin.first > value ? '>' : '<'} ${answerField(origin.pointer)}` }];
}

/** What a step needs of its operation, found once per operation (a recording turns thousands of requests of a few operations into steps). */
const operationFacts = new WeakMap<JsonObject, { effects: Effects; declared: JsonObject[] }>();
function factsOf({ operation, pathItem, document }: ResolvedOperation): { effects: Effects; declared: JsonObject[] } {
  let facts = operationFacts.get(operation);
  if (!facts) operationFacts.set(operation, (facts = { effects: effectsOf(operation), declared: [...((pathItem.parameters ?? []) as unknown[]), ...((operation.parameters ?? []) as unknown[])].map((p) => resolveRef(document, p)) }));
  return facts;
}

/** `$response.body#<pointer>`. */
const answerField = (pointer: string): string => formatExpression({ root: '$response', part: 'body', pointer });

/**
 * What each recording is built into, by its list of exchanges: a recording that only grew (the
 * recorder appends) is built on from where it was, so one written again and again as it grows
 * (`--record`) turns each request into its step once; a list changed otherwise (a sign-up's
 * steps leaving `no-key`) is a new list, built anew.
 */
const builtFor = new WeakMap<RecordedExchange[], ReturnType<typeof builder>>();

function built({ exchanges }: Recording, target: ArazzoTarget): ReturnType<typeof builder> {
  let kept = builtFor.get(exchanges);
  const same = kept && kept.sources.numbersApi === target.document && kept.sources.mockControl === target.controlDocument;
  if (!kept || !same || kept.count > exchanges.length || (kept.last && exchanges[kept.count - 1] !== kept.last)) builtFor.set(exchanges, (kept = builder(target)));
  for (let i = kept.count; i < exchanges.length; i++) kept.add(exchanges[i]!);
  return kept;
}

/** The recording as an Arazzo document: one workflow named after it. */
export function recordingToArazzo(recording: Recording, target: ArazzoTarget): JsonObject {
  return JSON.parse(recordingFileText(recording, target)) as JsonObject;
}

/** The recording as the text its file holds (`recordingText` of its document), its keys masked. */
export function recordingFileText(recording: Recording, target: ArazzoTarget): string {
  return built(recording, target).text(recording, target);
}

/** Where a document's text has its steps (the mark's place, found from the end: the steps are the text's last field). */
const STEPS_HERE = '\u0000steps';
const STEPS_HERE_TEXT = JSON.stringify(STEPS_HERE);
/**
 * A step as the document's text holds it, four levels deep (`workflows[0].steps[i]`): written so
 * by JSON.stringify inside arrays of that depth and read out of them, one flat string (the same
 * text indented by replacing its line ends is made of pieces, ten times slower to copy at each write).
 */
const NESTED = JSON.stringify([[[['']]]], null, 2);
const STEP_AT = NESTED.indexOf('""');
const STEP_END = NESTED.length - STEP_AT - 2;
const STEP_INDENT = NESTED.slice(NESTED.lastIndexOf('\n', STEP_AT) + 1, STEP_AT);
const stepText = (step: JsonObject): string => JSON.stringify([[[[step]]]], null, 2).slice(STEP_AT, -STEP_END);

/** A builder of one recording's document (`built`). */
function builder(target: ArazzoTarget) {
  const sources = { numbersApi: target.document, mockControl: target.controlDocument };
  const testValues = (target.document['x-test-values'] ?? []) as JsonObject[];
  const signupCodes = new Set(testValues.filter((t) => String(t.field) === 'body.code').map((t) => String(t.value)));
  /** Documented test values reach their outcome only as sent: never made fresh. */
  const documented = new Set(testValues.map((t) => String(t.value)));
  const steps: JsonObject[] = [];
  const counts = new Map<string, number>();
  const issued = new Map<string, Origin>();
  const sentLiterals = new Set<string>();
  const carried = new Map<string, string>();
  const inputs: JsonObject = {};
  const required: string[] = [];
  let sends = 0;
  const guarded = new Map<string, string>();
  /** Values sent where the service takes them once, by the step (index) that made them fresh and where it sent them. */
  const made = new Map<string, { step: number; field: string; at: RequestPlace }>();
  /** The operation of the step being written. */
  let operationNow: ResolvedOperation | undefined;

  /** A value carried from the step that issued it (its answer) or made it fresh (its request): that step's output. */
  const carry = (value: string): string | undefined => {
    const known = carried.get(value);
    if (known) return known;
    const origin = issued.get(value) ?? made.get(value);
    const step = origin ? steps[origin.step] : undefined;
    if (!origin || !step) return undefined;
    rewrite(origin.step);
    const outputs = (step.outputs ??= {}) as Record<string, string>;
    const base = origin.field.replace(/[^\w]/g, '') || 'value';
    let name = base;
    for (let n = 2; outputs[name] !== undefined; n++) name = `${base}${n}`;
    if ('at' in origin) outputs[name] = formatExpression(requestExpression(origin.at));
    else {
      outputs[name] = answerField(origin.pointer);
      (step.successCriteria as JsonObject[]).push({ context: answerField(origin.pointer), condition: formatOf(value), type: 'regex' });
      (step.successCriteria as JsonObject[]).push(...listOrder(origin, value));
    }
    const expression = formatExpression({ root: '$steps', stepId: String(step.stepId), part: 'outputs', name });
    carried.set(value, expression);
    return expression;
  };

  const input = (name: string, schema: JsonObject): string => {
    if (!inputs[name]) {
      inputs[name] = schema;
      if (schema.default === undefined) required.push(name);
    }
    return formatExpression({ root: '$inputs', name });
  };

  /**
   * A text sent with a key inside it (a webhook URL's query, a message's body): the request's key
   * as the value it replays with (`{$inputs.apiKey}`, or the sign-up's step output), any other key
   * masked, by the one redactor of every door (src/request/redact.ts).
   */
  const keyless = (text: string, key: string | undefined): string =>
    key !== undefined && text.includes(key) ? redactor([key], { mark: `{${carry(key) ?? input('apiKey', ARAZZO_KEY_INPUT)}}` })(text) : otherKeysMasked(text);

  const sent = (value: unknown, key: string | undefined, place: Place): unknown => {
    const { field, at } = place;
    if (typeof value === 'string') {
      if (key !== undefined && value === key) return carry(value) ?? input('apiKey', ARAZZO_KEY_INPUT);
      if (SECRET_FIELD.test(field)) {
        return signupCodes.has(value)
          ? input('signupCode', { type: 'string', default: value, description: 'The emailed or texted sign-up code (part 4.1). The default is the mock\'s documented test value (`signupCode`, spec/test-values.yaml); give the code that reached you on a deployment.' })
          : input(field, { type: 'string', format: 'password', description: `The \`${field}\` the frontend sent (a secret: never written).` });
      }
      const expression = carry(value);
      if (expression) return expression;
      sentLiterals.add(value);
      // Where the service takes it once: a fresh value at its first use, carried from there to the later ones.
      const unique = at && operationNow && !documented.has(value) ? uniqueAt(operationNow, at) : undefined;
      if (!unique || !at) return keyless(value, key);
      if (!made.has(value)) made.set(value, { step: steps.length, field, at });
      return freshValue(unique.schema);
    }
    // Inside a body, each value's place is its pointer (`$request.body#/a/0/b`).
    const below = (segment: string | number, name: string): Place => {
      const pointer = at?.in === 'body' ? `${at.pointer}/${escapePointerSegment(segment)}` : undefined;
      return { field: name, ...(pointer !== undefined && RESPECT_POINTER.test(pointer) ? { at: { in: 'body', pointer } } : {}) };
    };
    if (Array.isArray(value)) return value.map((item, i) => sent(item, key, below(i, field)));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sent(v, key, below(k, k))]));
    return value;
  };

  /**
   * The promise "the key is never written", kept here for every door that gives a recording out
   * (`--record` files, `/__mock/recording`, MSW's `recordings()`, the docs' Record toggle): any
   * key left anywhere in the document (a property name, a parameter's name, a recording's name)
   * is masked as the account shows its keys (part 5.3), the keys the recording saw first; in the
   * text, each step's as it is written.
   */
  const keys = new Set<string | undefined>();
  let masked = redactor([], { json: true });
  /**
   * Each step as the document's text holds it, written once: up to the first step a later request
   * changed (`carry` gave it an output), the texts of the last write; the rest written anew.
   */
  const stepTexts: string[] = [];
  function rewrite(index: number): void {
    stepTexts.length = Math.min(stepTexts.length, index);
  }
  function stepsAsText(): string {
    for (let i = stepTexts.length; i < steps.length; i++) stepTexts.push(masked(stepText(steps[i]!)));
    return `${STEP_INDENT}${stepTexts.join(`,\n${STEP_INDENT}`)}`;
  }

  const self = { sources, count: 0, last: undefined as RecordedExchange | undefined, add, text };
  return self;

  function add(exchange: RecordedExchange): void {
    const index = steps.length;
    self.count += 1;
    self.last = exchange;
    if (!keys.has(exchange.key)) {
      // A key seen first now is masked in the steps written before it too.
      keys.add(exchange.key);
      masked = redactor([...keys], { json: true });
      rewrite(0);
    }
    const operation = findOperation(sources, exchange.source, exchange.operationId);
    const count = (counts.get(exchange.operationId) ?? 0) + 1;
    counts.set(exchange.operationId, count);
    const stepId = count === 1 ? exchange.operationId : `${exchange.operationId}${count}`;
    const facts = operation ? factsOf(operation) : undefined;
    const effects = facts?.effects; // none: taken at its worst below
    const route = operation ? `${operation.method.toUpperCase()} ${operation.path}` : `${exchange.method}`;
    const step: JsonObject = {
      stepId,
      description: effects?.mockOnly ? `Mock only. ${operation?.operation.summary ?? exchange.operationId} (${route}); left out on a deployment.` : `${route} (${exchange.status}).`,
      operationId: formatExpression({ root: '$sourceDescriptions', source: exchange.source, name: exchange.operationId }),
    };
    operationNow = operation;
    if (!effects?.mockOnly && (effects?.changesState ?? true)) {
      sends += 1;
      const reason = effects ? harmOf(effects) : 'is no operation of the contract';
      if (reason) guarded.set(exchange.operationId, reason);
    }
    const parameters: JsonObject[] = [];
    const declared = facts?.declared ?? [];
    // A path or query value as its schema types it (`limit=1` is the integer 1).
    const typed = (where: string, name: string, value: string): unknown => {
      const type = resolveRef(operation?.document, declared.find((p) => p?.in === where && p.name === name)?.schema)?.type;
      if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
      if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
      return value;
    };
    const at = (where: 'path' | 'query' | 'header', name: string): Place => ({ field: name, at: { in: where, name } });
    for (const [name, value] of Object.entries(exchange.params)) parameters.push({ name, in: 'path', value: sent(typed('path', name, value), exchange.key, at('path', name)) });
    for (const [name, value] of exchange.query) parameters.push({ name, in: 'query', value: sent(typed('query', name, value), exchange.key, at('query', name)) });
    for (const [lower, value] of Object.entries(exchange.headers)) {
      const parameter = declared.find((p) => p?.in === 'header' && String(p.name).toLowerCase() === lower);
      if (parameter) parameters.push({ name: String(parameter.name), in: 'header', value: sent(value, exchange.key, at('header', String(parameter.name))) });
    }
    if (exchange.key !== undefined) {
      // A key the recorded sign-up got (verify or verify-number) is carried from that step.
      parameters.push({ name: 'Authorization', in: 'header', value: `Bearer {${carry(exchange.key) ?? input('apiKey', ARAZZO_KEY_INPUT)}}` });
    }
    if (parameters.length > 0) step.parameters = parameters;
    if (exchange.body !== undefined) step.requestBody = { contentType: exchange.contentType ?? 'application/json', payload: sent(exchange.body, exchange.key, { field: '', at: { in: 'body', pointer: '' } }) };
    const criteria: JsonObject[] = [
      exchange.operationId === 'waitForEvent' && exchange.status === 408 ? { condition: '$statusCode == 200 || $statusCode == 408' } : { condition: `$statusCode == ${exchange.status}` },
    ];
    step.successCriteria = criteria;
    steps.push(step);

    // The answer: carried values shown again must be equal; new issued values are remembered.
    let equalities = 0;
    const asserted = new Set<string>();
    const answer = parseJsonText(exchange.responseText);
    for (const leaf of stringLeaves(answer)) {
      if (!RESPECT_POINTER.test(leaf.pointer) || leaf.pointer === '') continue;
      const expression = carried.get(leaf.value);
      if (expression) {
        if (!asserted.has(leaf.value) && equalities < MAX_EQUALITIES) {
          criteria.push({ condition: `${answerField(leaf.pointer)} == ${expression}` });
          asserted.add(leaf.value);
          equalities += 1;
        }
        continue;
      }
      if (exchange.status < 300 && !issued.has(leaf.value) && !sentLiterals.has(leaf.value) && looksIssued(leaf.field, leaf.value)) {
        const item = /^(.*)\/\d+\/([\w-]+)$/.exec(leaf.pointer);
        issued.set(leaf.value, { step: index, pointer: leaf.pointer, field: leaf.field, ...(item ? { first: valueAt(answer, `#${item[1]}/0/${item[2]}`) } : {}) });
      }
    }
  }

  /** The document of `recording` (each of its exchanges added) as `recordingText` writes it, named at `at`'s mock. */
  function text(recording: Recording, at: ArazzoTarget): string {
    const urls = descriptionUrls(at);
    const level = guarded.size > 0 ? 'never' : sends > 0 ? 'writes' : 'contract';
    const workflow: JsonObject = {
      workflowId: recording.name,
      summary: `Recorded on the mock: ${recording.exchanges.length} request${recording.exchanges.length === 1 ? '' : 's'}${recording.leftOut > 0 ? `, ${recording.leftOut} more left out past the recorder's bounds` : ''}`,
      description:
        'What a frontend did on the mock, in order (numbers-api recording, issue 31). Values the mock issued and the frontend sent back are carried by runtime expressions; steps whose description begins "Mock only" drive the mock\'s control surface and are left out on a deployment.',
      'x-conformance': {
        level,
        ...(level !== 'contract' ? { sends } : {}),
        reason: level === 'never' ? [...guarded.entries()].map(([op, why]) => `${op}: ${why}`).join('; ') : level === 'writes' ? `${sends} request${sends === 1 ? '' : 's'} that change${sends === 1 ? 's' : ''} something.` : 'Reads only.',
      },
      ...(Object.keys(inputs).length > 0 ? { inputs: { type: 'object', ...(required.length > 0 ? { required } : {}), properties: inputs } } : {}),
      steps: STEPS_HERE,
    };
    const shell = masked(recordingText({
      arazzo: '1.0.1',
      info: { title: `Recording ${recording.name}`, version: '1.0.0', summary: 'What a frontend did on the numbers-api mock, replayable against a deployment.' },
      sourceDescriptions: [
        { name: 'numbersApi', url: urls.numbersApi, type: 'openapi' },
        { name: 'mockControl', url: urls.mockControl, type: 'openapi' },
      ],
      workflows: [workflow],
    }));
    const mark = shell.lastIndexOf(STEPS_HERE_TEXT);
    return `${shell.slice(0, mark)}${steps.length > 0 ? `[\n${stepsAsText()}\n${STEP_INDENT.slice(2)}]` : '[]'}${shell.slice(mark + STEPS_HERE_TEXT.length)}`;
  }
}

/** The document as the text a recording file holds (stable: the same recording gives the same bytes). */
export function recordingText(document: JsonObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
