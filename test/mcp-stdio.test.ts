// `numbers-api mcp` over stdio, driven by the MCP SDK's own client (StdioClientTransport spawns
// the real command), against the stateful mock it starts in its own process: the tools are the
// contract's operations (every one, schemas that are JSON Schema, unions kept), a write refuses
// until --allow-writes, a failed call is a tool error carrying the contract's Error, the sign-up
// workflow runs as one tool, and an injected inbound message is waited for. Every expectation is
// derived from generated/.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadOpenApi, type JsonObject } from './helpers/contract.js';
import { resolveRef } from '../src/contract/json-pointer.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { connectStdio, resultText, structured, type McpSession } from './helpers/mcp-client.js';
import { contractValidator, jsonSchemaAjv } from '../src/contract/contract-validator.js';

const openapi = loadOpenApi();
const operations = listOperations(openapi);
const arazzo = readGeneratedJson('workflows.arazzo.json');
const contract = contractValidator(openapi);
const isError = (value: unknown): boolean => contract.accepts('#/components/schemas/Error', value);

/** A JSON Schema 2020-12 validator that refuses unknown keywords and checks each schema against the meta-schema. */
function strictAjv() {
  return jsonSchemaAjv({ strict: true });
}

/** The request examples of an operation's JSON body, as documented. */
function requestExamples(operationId: string): unknown[] {
  const entry = operations.find((o) => o.operation.operationId === operationId)!;
  const media = resolveRef(openapi, entry.operation.requestBody).content['application/json'];
  return Object.values((media.examples ?? {}) as JsonObject).map((example) => resolveRef(openapi, example).value);
}

const errorOf = (result: unknown): JsonObject => JSON.parse(resultText(result));

describe('numbers-api mcp over stdio, on the in-process mock, read-only (the default)', () => {
  let session: McpSession;
  let tools: Tool[];

  beforeAll(async () => {
    session = await connectStdio([]);
    tools = (await session.client.listTools()).tools;
  });
  afterAll(async () => session?.close());

  it('lists one tool per documented operation, named by its operationId and described by its summary, description, method, path and the parts it cites', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const { method, path, operation } of operations) {
      const tool = tools.find((t) => t.name === operation.operationId);
      expect(tool, operation.operationId).toBeDefined();
      expect(tool!.description).toContain(String(operation.summary).replace(/\.$/, ''));
      expect(tool!.description).toContain(`${method.toUpperCase()} ${path}`);
      expect(tool!.description).toContain(String(operation['x-source']));
      expect(tool!.description).toContain(String(operation.description).trim().split('\n')[0]);
      expect(tool!.annotations?.readOnlyHint, operation.operationId).toBe(method === 'get' || ['waitForEvent', 'previewSubscriptionChange'].includes(operation.operationId));
    }
  });

  it('lists the workflows of the contract, the next-event wait and, the target being the mock, its control surface', () => {
    const names = new Set(tools.map((t) => t.name));
    for (const workflow of arazzo.workflows as JsonObject[]) expect(names, workflow.workflowId).toContain(`workflow_${workflow.workflowId}`);
    for (const entry of listOperations(readGeneratedJson('mock-control.json'))) expect(names).toContain(entry.operation.operationId);
    expect(names).toContain('next_event');
  });

  it('gives every tool input and output schemas that are JSON Schema 2020-12: objects at the root, no unknown keyword, valid against the meta-schema', () => {
    const ajv = strictAjv();
    let compiled = 0;
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema].filter(Boolean)) {
        expect(schema!.type, tool.name).toBe('object');
        expect(() => ajv.compile(schema!), tool.name).not.toThrow();
        compiled += 1;
      }
    }
    expect(compiled).toBeGreaterThan(tools.length);
  });

  it('keeps the unions of the contract: each oneOf body keeps its branches, so sendMessage refuses both `to` and `groupId` and takes each documented request', () => {
    for (const { operation } of operations.filter((o) => o.operation.requestBody)) {
      const schema = resolveRef(openapi, resolveRef(openapi, operation.requestBody).content?.['application/json']?.schema ?? {});
      if (!Array.isArray(schema.oneOf)) continue;
      const tool = tools.find((t) => t.name === operation.operationId)!;
      const body = (tool.inputSchema.properties as JsonObject).body;
      const union = body.$ref ? (tool.inputSchema.$defs as JsonObject)[String(body.$ref).split('/').pop()!] : body;
      expect(union.oneOf, operation.operationId).toHaveLength(schema.oneOf.length);
    }
    const send = tools.find((t) => t.name === 'sendMessage')!;
    const validate = strictAjv().compile(send.inputSchema);
    const examples = requestExamples('sendMessage');
    expect(examples.length).toBeGreaterThan(2);
    for (const example of examples) expect(validate({ body: example }), JSON.stringify(example)).toBe(true);
    const toNumber = examples.find((e) => typeof (e as JsonObject).to === 'string') as JsonObject;
    expect(validate({ body: { ...toNumber, groupId: 'grp_01JD2R5K8M3N6P9Q2S4T7V0W1X' } })).toBe(false);
  });

  it('answers a read with its documented status and body, checked by the client against the output schema', async () => {
    const result = await session.client.callTool({ name: 'listNumbers', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(structured(result).status).toBe(200);
    expect(structured(result).body.length).toBeGreaterThan(0);
    expect(JSON.parse(resultText(result))).toEqual(structured(result));
  });

  it('refuses a write until --allow-writes, saying how to allow it, and sends nothing', async () => {
    const before = structured(await session.client.callTool({ name: 'listMessages', arguments: {} })).body.length;
    const line = structured(await session.client.callTool({ name: 'listNumbers', arguments: {} })).body[0];
    const result = await session.client.callTool({ name: 'sendMessage', arguments: { body: { to: '+14155550123', fromNumberId: line.id, body: 'Refused?' } } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/read-only.*--allow-writes/);
    expect(structured(await session.client.callTool({ name: 'listMessages', arguments: {} })).body.length).toBe(before);
    expect(tools.find((t) => t.name === 'sendMessage')!.description).toMatch(/Refused on this server unless it is restarted with --allow-writes/);
    expect(tools.find((t) => t.name === 'listMessages')!.description).not.toMatch(/Refused/);
  });

  it('returns a documented error as a tool error carrying the contract\'s Error: status, error and code', async () => {
    const result = await session.client.callTool({ name: 'getInvoice', arguments: { invoiceId: 'in_not_on_this_account' } });
    expect(result.isError).toBe(true);
    const { status, ...error } = errorOf(result);
    expect(status).toBe(404);
    expect(isError(error), JSON.stringify(error)).toBe(true);
  });

  it('waits for the next event and gives {event: null} when none comes in time (the 408 part 6 expects)', async () => {
    // An inbound message: nothing on a read-only server makes one (the seed's call moves on by itself, 2 and 7 s after the account opens).
    const result = await session.client.callTool({ name: 'next_event', arguments: { timeout: 1, filters: { type: 'message.received' } } });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toEqual({ event: null });
  });
});

describe('numbers-api mcp --allow-writes over stdio, on the in-process mock', () => {
  let session: McpSession;

  beforeAll(async () => {
    session = await connectStdio(['--allow-writes']);
    await session.client.listTools();
  });
  afterAll(async () => session?.close());

  const call = (name: string, args: JsonObject = {}) => session.client.callTool({ name, arguments: args });

  it('sends a message and lists it on the mock', async () => {
    const line = structured(await call('listNumbers')).body[0];
    const sent = await call('sendMessage', { body: { to: '+14155550123', fromNumberId: line.id, body: 'Your table is ready.' } });
    expect(sent.isError, resultText(sent)).toBeFalsy();
    expect(structured(sent).status).toBe(201);
    const listed = structured(await call('listMessages')).body;
    expect(listed[0].id).toBe(structured(sent).body.id);
    expect(listed[0].body).toBe('Your table is ready.');
  });

  it('returns the 400 of a body that breaks the contract as a tool error with fieldErrors', async () => {
    const result = await call('sendMessage', { body: { to: '+14155550123', fromNumberId: 42, body: 'Wrong type' } });
    expect(result.isError).toBe(true);
    const { status, ...error } = errorOf(result);
    expect(status).toBe(400);
    expect(isError(error)).toBe(true);
    expect(Object.keys((error.error as JsonObject).fieldErrors ?? {}).length).toBeGreaterThan(0);
  });

  it('waits for an injected inbound message (next_event, then the test helper injects one)', async () => {
    const line = structured(await call('listNumbers')).body[0];
    // What is already pending is taken first: the wait below sees only what comes after.
    while (structured(await call('next_event', { timeout: 1, filters: { type: 'message.received' } })).event !== null);
    const waiting = call('next_event', { timeout: 30, filters: { type: 'message.received' } });
    const injected = await call('injectTestInboundMessage', { body: { to: line.number, from: '+14155550123', body: 'Is the table still free at eight?' } });
    expect(injected.isError, resultText(injected)).toBeFalsy();
    const { event } = structured(await waiting);
    expect(event.type).toBe('message.received');
    expect(event.data.messageId).toBe(structured(injected).body.id);
    expect(event.data.body).toBe('Is the table still free at eight?');
  });

  it('runs the sign-up workflow in one call and shows each step; the new key only as a preview', async () => {
    const workflow = (arazzo.workflows as JsonObject[]).find((w) => w.workflowId === 'signUpNewAccount')!;
    const result = await call('workflow_signUpNewAccount');
    expect(result.isError, resultText(result)).toBeFalsy();
    const run = structured(result);
    expect(run.passed).toBe(true);
    expect(run.steps.map((s: JsonObject) => s.stepId)).toEqual((workflow.steps as JsonObject[]).map((s) => s.stepId));
    expect(run.steps.every((s: JsonObject) => s.outcome === 'passed')).toBe(true);
    expect(run.steps.find((s: JsonObject) => s.stepId === 'newAccountRegistration').steps.length).toBeGreaterThan(1);
    expect(Object.keys(run.outputs).sort()).toEqual(Object.keys(workflow.outputs).sort());
    expect(run.outputs.apiKey).toMatch(/^sk_live_…/);
    expect(resultText(result)).not.toMatch(/sk_live_[A-Za-z0-9_-]/);
    expect(session.stderr()).not.toMatch(/sk_live_[A-Za-z0-9_-]/);
  });
});
