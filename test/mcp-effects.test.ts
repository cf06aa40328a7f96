// `numbers-api mcp --allow-writes` driven by the MCP SDK's own client against a deployment
// stand-in: the stateful mock behind a recording proxy that hides `/__mock/`, so the server sees
// a deployment and the proxy keeps every request it sent. Part 7.2 at the agent's door: two
// `createCall` calls with the same arguments and no key from the agent place one call (the second
// is a replay, 200), each with the key the server made and returned; a new key places another.
// And the tools' annotations are the contract's `x-effects`, operation by operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectsOf } from '../src/contract/effects.js';
import { listOperations, loadOpenApi, type JsonObject } from './helpers/contract.js';
import { startRecordingProxy, type RecordingProxy } from './helpers/conformance-recording-proxy.js';
import { connectStdio, resultText, structured, type McpSession } from './helpers/mcp-client.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';


describe('numbers-api mcp against a deployment stand-in that records each request', () => {
  let mock: StatefulMock;
  let proxy: RecordingProxy;
  let session: McpSession;
  const key = newKey('mcp_effects');
  let fromNumberId: string;
  let callsBefore: number;
  const callsNow = async (): Promise<Array<{ id: string }>> => (await client(mock.url, key)('GET', '/api/v1/calls')).body;
  const placed = () => proxy.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/calls');

  beforeAll(async () => {
    mock = await startStatefulMock();
    proxy = await startRecordingProxy(mock.url, { hide: /^\/__mock\// });
    const numbers = await client(mock.url, key)('GET', '/api/v1/numbers');
    fromNumberId = String((numbers.body.items ?? numbers.body)[0].id);
    callsBefore = (await callsNow()).length;
    session = await connectStdio(['--allow-writes'], { NUMBERS_API_BASE_URL: proxy.url, NUMBERS_API_KEY: key });
  });
  afterAll(async () => {
    await session?.close();
    await proxy?.close();
    await mock?.close();
  });

  it('takes the stand-in for a deployment (nothing of the control surface is listed)', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('mockAdvanceClock');
    expect(session.stderr()).toMatch(/a deployment \(not the mock\)/);
  });

  it('two createCall calls with the same arguments and no key place one call: the second replays it (200)', async () => {
    const body = { to: '+14155550123', fromNumberId, outboundInstruction: 'Confirm tomorrow at 10:00.' };
    const first = await session.client.callTool({ name: 'createCall', arguments: { body } });
    const again = await session.client.callTool({ name: 'createCall', arguments: { body: { outboundInstruction: body.outboundInstruction, fromNumberId, to: body.to } } });
    expect(first.isError, resultText(first)).toBeFalsy();
    expect(structured(first)).toMatchObject({ status: 201, idempotencyKey: expect.any(String) });
    expect(structured(again)).toMatchObject({ status: 200, idempotencyKey: structured(first).idempotencyKey, body: { id: structured(first).body.id } });
    // Both went out, with the one key the server made (the agent sent none).
    expect(placed().map((r) => r.headers['idempotency-key'])).toEqual([structured(first).idempotencyKey, structured(first).idempotencyKey]);
    const calls = await callsNow();
    expect(calls.filter((c) => c.id === structured(first).body.id)).toHaveLength(1);
    expect(calls).toHaveLength(callsBefore + 1);
  });

  it('places a second identical call when the agent passes a new key, and sends the agent\'s key as given', async () => {
    const body = { to: '+14155550123', fromNumberId, outboundInstruction: 'Confirm tomorrow at 10:00.' };
    const second = await session.client.callTool({ name: 'createCall', arguments: { 'Idempotency-Key': 'agent-chosen-key-2', body } });
    expect(structured(second)).toMatchObject({ status: 201, idempotencyKey: 'agent-chosen-key-2' });
    expect(placed().at(-1)!.headers['idempotency-key']).toBe('agent-chosen-key-2');
    expect(await callsNow()).toHaveLength(callsBefore + 2);
  });

  it('returns the key it made in a tool error too, so a retry after a refusal can repeat it', async () => {
    const result = await session.client.callTool({ name: 'createCall', arguments: { body: { to: 'not-a-phone-number', fromNumberId, outboundInstruction: 'x' } } });
    expect(result.isError).toBe(true);
    const error = JSON.parse(resultText(result));
    expect(error).toMatchObject({ status: 400, idempotencyKey: placed().at(-1)!.headers['idempotency-key'] });
    expect(error.idempotencyKey).not.toBe(placed()[0]!.headers['idempotency-key']);
  });

  it('says in the createCall tool how the key is made and how to place a second identical call', async () => {
    const { tools } = await session.client.listTools();
    const description = tools.find((t) => t.name === 'createCall')!.description!;
    expect(description).toMatch(/always sends an `Idempotency-Key`/);
    expect(description).toMatch(/same arguments .* same key/);
    expect(description).toMatch(/pass a new `Idempotency-Key`/);
  });

  it('annotates every operation tool with its x-effects (readOnly, destructive, idempotent, open world)', async () => {
    const { tools } = await session.client.listTools();
    const operations = listOperations(loadOpenApi());
    expect(operations.length).toBeGreaterThan(30);
    for (const { operation } of operations) {
      const effects = operation['x-effects'] as JsonObject;
      expect(effectsOf(operation).reason).toBe(effects.reason);
      const tool = tools.find((t) => t.name === operation.operationId)!;
      expect(tool.annotations, operation.operationId).toEqual({
        title: operation.summary,
        readOnlyHint: !effects.changesState,
        ...(effects.changesState ? { destructiveHint: effects.deletes, idempotentHint: effects.idempotencyKey !== undefined } : {}),
        openWorldHint: effects.reachesPerson,
      });
    }
  });
});
