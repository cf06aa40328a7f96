// The MCP server's rules one by one, as plain functions (its policy: test/mcp-policy.test.ts): the
// Arazzo criteria (every one the contract's workflows use is read; each operator decides), the workflow runner (mock-only steps left out on
// a deployment, a refusal stops the run, a loop that never settles ends), the redactor and the
// tool schemas (OpenAPI annotations out, properties with such names kept, `$ref`s carried).
import { describe, expect, it } from 'vitest';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { formatExpression, parseCondition, type Criterion, type RuntimeExpression } from '../src/contract/runtime-expression.js';
import { criterionHolds } from '../src/workflows/arazzo-condition.js';
import { MAX_VISITS_PER_STEP, WorkflowRunner, type StepRequest } from '../src/workflows/arazzo-runner.js';
import { redactor } from '../src/request/redact.js';
import { schemaCollector, withDefs } from '../src/mcp/tool-schema.js';
import type { JsonObject } from './helpers/contract.js';

const arazzo = readGeneratedJson('workflows.arazzo.json');

describe('Arazzo criteria', () => {
  const criteria: Criterion[] = (arazzo.workflows as JsonObject[]).flatMap((w) =>
    (w.steps as JsonObject[]).flatMap((s) => [...(s.successCriteria ?? []), ...[...(s.onSuccess ?? []), ...(s.onFailure ?? [])].flatMap((a: JsonObject) => a.criteria ?? [])]),
  );

  it('reads every criterion of the contract\'s workflows', () => {
    expect(criteria.length).toBeGreaterThan(100);
    for (const criterion of criteria) expect(() => criterionHolds(criterion, () => undefined), criterion.condition).not.toThrow();
  });

  const values: Record<string, unknown> = {
    $statusCode: 408,
    '$response.body#/limits': null,
    '$response.body#/balance': 25,
    '$inputs.topUp': 25,
    '$response.body#/items/0/occurredAt': '2026-11-01T00:00:00Z',
    '$steps.firstPage.outputs.cursor': '2026-11-02T00:00:00Z',
    '$response.body': { registrationId: 'reg_1', items: [{ type: 'payment-credits' }] },
    '$response.body#/error': "WhatsApp isn't connected on this number.",
    '$steps.subscribe.outputs.subscriptionId': 'wh_1',
  };
  const evaluate = (expression: RuntimeExpression) => values[formatExpression(expression)];
  it.each([
    [{ condition: '$statusCode == 200 || $statusCode == 408' }, true],
    [{ condition: '$statusCode == 200' }, false],
    [{ condition: '$statusCode != 200 && !($statusCode == 500)' }, true],
    [{ condition: '$response.body#/limits == null' }, true],
    [{ condition: '$response.body#/limits != null' }, false],
    [{ condition: '$response.body#/missing == null' }, true],
    [{ condition: '$response.body#/balance == $inputs.topUp' }, true],
    [{ condition: '$response.body#/balance < $inputs.topUp' }, false],
    [{ condition: '$response.body#/items/0/occurredAt < $steps.firstPage.outputs.cursor' }, true],
    [{ condition: "$response.body#/error == 'whatsapp'" }, false],
    [{ context: '$response.body#/error', condition: "^WhatsApp isn't connected on this number\\.$", type: 'regex' }, true],
    [{ context: '$response.body', condition: '$[?!@.apiKey]', type: 'jsonpath' }, true],
    [{ context: '$response.body', condition: '$[?!@.registrationId]', type: 'jsonpath' }, false],
    [{ context: '$response.body', condition: "$[?count(@.items[?@.type != 'payment-credits']) == 0]", type: 'jsonpath' }, true],
  ] as Array<[Criterion, boolean]>)('%j → %s', (criterion, want) => {
    expect(criterionHolds(criterion, evaluate)).toBe(want);
  });

  it('refuses a condition it cannot read, instead of guessing', () => {
    expect(() => parseCondition('$statusCode === 200')).toThrow();
    expect(() => parseCondition('($statusCode == 200')).toThrow();
    expect(() => criterionHolds({ condition: 'x', type: 'xpath' }, evaluate)).toThrow(/xpath/);
  });
});

describe('the workflow runner', () => {
  const document = {
    workflows: [
      {
        workflowId: 'flow',
        inputs: { type: 'object', properties: { apiKey: { type: 'string' }, to: { type: 'string', default: '+14155550123' } } },
        steps: [
          { stepId: 'clock', operationId: '$sourceDescriptions.mockControl.mockAdvanceClock', requestBody: { payload: { seconds: 60 } }, successCriteria: [{ condition: '$statusCode == 200' }] },
          {
            stepId: 'send',
            operationId: '$sourceDescriptions.numbersApi.sendMessage',
            parameters: [{ name: 'Authorization', in: 'header', value: 'Bearer {$inputs.apiKey}' }],
            requestBody: { payload: { to: '$inputs.to', body: 'Hello' } },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { id: '$response.body#/id' },
          },
          { stepId: 'again', operationId: '$sourceDescriptions.numbersApi.listMessages', successCriteria: [{ condition: '$statusCode == 200' }], onSuccess: [{ name: 'loop', type: 'goto', stepId: 'again', criteria: [{ condition: '$response.body#/0/id == $steps.send.outputs.id' }] }] },
        ],
        outputs: { id: '$steps.send.outputs.id' },
      },
    ],
  };
  const operationsBySource = {
    numbersApi: new Map([
      ['sendMessage', { method: 'post', path: '/api/v1/messages' }],
      ['listMessages', { method: 'get', path: '/api/v1/messages' }],
    ]),
    mockControl: new Map([['mockAdvanceClock', { method: 'post', path: '/__mock/clock/advance' }]]),
  };
  const answering = (calls: StepRequest[], refuse?: string) => async (request: StepRequest) => {
    calls.push(request);
    if (request.operationId === refuse) return { refused: `${refuse} is refused` };
    if (request.operationId === 'sendMessage') return { status: 201, headers: {}, body: { id: 'msg_1' } };
    if (request.operationId === 'listMessages') return { status: 200, headers: {}, body: [{ id: calls.length < 5 ? 'msg_1' : 'msg_2' }] };
    return { status: 200, headers: {}, body: {} };
  };

  it('carries values by runtime expressions (the hidden key included) and follows goto until its criteria fail', async () => {
    const calls: StepRequest[] = [];
    const run = await new WorkflowRunner({ arazzo: document, operations: operationsBySource, call: answering(calls), isMock: true, hiddenInputs: { apiKey: 'sk_live_hidden' } }).run('flow', {});
    expect(run.passed).toBe(true);
    expect(run.outputs).toEqual({ id: 'msg_1' });
    expect(calls[1]).toEqual({ source: 'numbersApi', operationId: 'sendMessage', values: {}, body: { to: '+14155550123', body: 'Hello' }, authorization: 'Bearer sk_live_hidden', stepId: 'send', workflowId: 'flow' });
    expect(calls.filter((c) => c.operationId === 'listMessages').length).toBe(3);
  });

  it('leaves the mock-only steps out on a deployment, and says so', async () => {
    const calls: StepRequest[] = [];
    const run = await new WorkflowRunner({ arazzo: document, operations: operationsBySource, call: answering(calls), isMock: false, hiddenInputs: {} }).run('flow', { to: '+14155550100' });
    expect(run.steps[0]).toMatchObject({ stepId: 'clock', outcome: 'skipped' });
    expect(calls.some((c) => c.source === 'mockControl')).toBe(false);
    expect(calls[0]!.body).toEqual({ to: '+14155550100', body: 'Hello' });
  });

  it('stops at a refused step: nothing after it is sent', async () => {
    const calls: StepRequest[] = [];
    const run = await new WorkflowRunner({ arazzo: document, operations: operationsBySource, call: answering(calls, 'sendMessage'), isMock: true, hiddenInputs: {} }).run('flow', {});
    expect(run.passed).toBe(false);
    expect(run.steps.at(-1)).toMatchObject({ stepId: 'send', outcome: 'refused' });
    expect(calls.map((c) => c.operationId)).toEqual(['mockAdvanceClock', 'sendMessage']);
  });

  it(`ends a loop that never settles after ${MAX_VISITS_PER_STEP} visits of a step`, async () => {
    const calls: StepRequest[] = [];
    const always = async (request: StepRequest) => {
      calls.push(request);
      return request.operationId === 'listMessages' ? { status: 200, headers: {}, body: [{ id: 'msg_1' }] } : answering([])(request);
    };
    const run = await new WorkflowRunner({ arazzo: document, operations: operationsBySource, call: always, isMock: true, hiddenInputs: {} }).run('flow', {});
    expect(run.passed).toBe(false);
    expect(calls.filter((c) => c.operationId === 'listMessages').length).toBe(MAX_VISITS_PER_STEP);
  });
});

describe('redactor', () => {
  it('masks the secrets it holds wherever they are, and shows any other key as a preview', () => {
    const redact = redactor(['sk_live_server_key_123456', 'control-token-abcdef']);
    expect(
      redact({ a: 'Bearer sk_live_server_key_123456', list: ['x control-token-abcdef y'], sk_live_server_key_123456: 1, other: { apiKey: 'sk_live_new_account_key_9876' } }),
    ).toEqual({ a: 'Bearer sk_live_…3456', list: ['x … y'], 'sk_live_…3456': 1, other: { apiKey: 'sk_live_…9876' } });
    expect(redact('no key here')).toBe('no key here');
  });
});

describe('tool schemas', () => {
  const document = {
    components: {
      schemas: {
        Node: { type: 'object', 'x-inferred': true, example: { a: 1 }, properties: { example: { type: 'string' }, 'x-name': { type: 'string' }, next: { $ref: '#/components/schemas/Node' }, leaf: { $ref: '#/components/schemas/Leaf' } } },
        Leaf: { type: 'string', enum: ['x-a', 'example'], description: 'A leaf.' },
        Unused: { type: 'string' },
      },
    },
  };

  it('carries the components a schema reaches into $defs (a cycle once), drops OpenAPI annotations, keeps properties and values with such names', () => {
    const collector = schemaCollector(document);
    const root = withDefs({ type: 'object', properties: { node: collector.convert({ $ref: '#/components/schemas/Node' }) } }, collector);
    expect(root).toEqual({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: {
        Leaf: { type: 'string', enum: ['x-a', 'example'], description: 'A leaf.' },
        Node: { type: 'object', properties: { example: { type: 'string' }, 'x-name': { type: 'string' }, next: { $ref: '#/$defs/Node' }, leaf: { $ref: '#/$defs/Leaf' } } },
      },
    });
  });

  it('leaves descriptions out of output schemas when asked, and refuses a $ref it cannot carry', () => {
    const collector = schemaCollector(document, { descriptions: false });
    collector.convert({ $ref: '#/components/schemas/Leaf' });
    expect(collector.defs().Leaf).toEqual({ type: 'string', enum: ['x-a', 'example'] });
    expect(() => schemaCollector(document).convert({ $ref: '#/components/responses/X' })).toThrow(/only #\/components\/schemas/);
    expect(() => schemaCollector(document).convert({ $ref: '#/components/schemas/Missing' })).toThrow(/no such schema/);
  });
});
