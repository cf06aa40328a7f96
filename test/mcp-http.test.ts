// `numbers-api mcp --http`: Streamable HTTP on loopback, driven by the SDK's
// StreamableHTTPClientTransport, against a stateful mock this test runs (NUMBERS_API_BASE_URL and
// NUMBERS_API_KEY, as `listen` reads them, named the mock with --target-is-mock): the operations as tools, a message sent and listed,
// an injected inbound message waited for, the key in no result and no log line; the port refuses
// what is not this machine's program holding the token; and --compact's three tools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listOperations, loadOpenApi, type JsonObject } from './helpers/contract.js';
import { resultText, structured, startHttpMcp, type HttpMcpServer } from './helpers/mcp-client.js';
import { rawRequest } from './helpers/raw-http.js';
import { client as mockClient, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const operations = listOperations(loadOpenApi());

describe('numbers-api mcp --http --allow-writes --target-is-mock, against a mock given by NUMBERS_API_BASE_URL', () => {
  let mock: StatefulMock;
  let server: HttpMcpServer;
  let mcp: Client;
  const key = newKey('mcp_http_secret');
  const results: string[] = [];
  const call = async (name: string, args: JsonObject = {}) => {
    const result = await mcp.callTool({ name, arguments: args });
    results.push(JSON.stringify(result));
    return result;
  };

  beforeAll(async () => {
    mock = await startStatefulMock();
    server = await startHttpMcp(['--allow-writes', '--target-is-mock'], { NUMBERS_API_BASE_URL: mock.url, NUMBERS_API_KEY: key });
    mcp = await server.connect();
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('serves on loopback and lists every documented operation as a tool', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    const { tools } = await mcp.listTools();
    for (const { operation } of operations) expect(tools.map((t) => t.name)).toContain(operation.operationId);
    expect(server.stderr()).toMatch(/the numbers-api mock at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('sends a message with the key it was given, and the mock lists it on that account', async () => {
    const line = structured(await call('listNumbers')).body[0];
    const sent = await call('sendMessage', { body: { to: '+14155550123', fromNumberId: line.id, body: 'Sent over Streamable HTTP.' } });
    expect(sent.isError, resultText(sent)).toBeFalsy();
    const listed = await mockClient(mock.url, key)('GET', '/api/v1/messages');
    expect(listed.body[0].id).toBe(structured(sent).body.id);
  });

  it('waits for an inbound message injected through the test helper', async () => {
    const line = structured(await call('listNumbers')).body[0];
    while (structured(await call('next_event', { timeout: 1, filters: { type: 'message.received' } })).event !== null);
    const waiting = call('next_event', { timeout: 30, filters: { type: 'message.received' } });
    const injected = await call('injectTestInboundMessage', { body: { to: line.number, from: '+14155550123', body: 'Over HTTP?' } });
    expect(structured(await waiting).event.data.messageId).toBe(structured(injected).body.id);
  });

  it('never shows the key: not in a tool result, not in a log line', async () => {
    await call('getAccount');
    await call('workflow_sendListDeliver');
    expect(results.length).toBeGreaterThan(5);
    for (const text of [...results, server.stderr()]) expect(text).not.toContain(key);
    expect(server.stderr()).toMatch(/sendMessage → ok/);
  });

  it('refuses a request without the token, with a wrong one, from a web page (Origin) or under a Host that is not loopback', async () => {
    const { port } = new URL(server.url);
    const base = `http://127.0.0.1:${port}`;
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: `127.0.0.1:${port}` };
    const token = `Bearer ${server.token}`;
    expect((await rawRequest(base, 'POST', '/mcp', headers, initialize)).status).toBe(401);
    expect((await rawRequest(base, 'POST', '/mcp', { ...headers, authorization: 'Bearer wrong-token-wrong-token' }, initialize)).status).toBe(401);
    expect((await rawRequest(base, 'POST', '/mcp', { ...headers, authorization: token, origin: 'https://evil.example' }, initialize)).status).toBe(403);
    expect((await rawRequest(base, 'POST', '/mcp', { ...headers, authorization: token, host: `rebound.example:${port}` }, initialize)).status).toBe(403);
    // The same request, as this machine's program with the token, is answered.
    const accepted = await rawRequest(base, 'POST', '/mcp', { ...headers, authorization: token }, initialize);
    expect(accepted.status, accepted.body).toBe(200);
    expect(accepted.body).toContain('"serverInfo"');
  });
});

describe('numbers-api mcp --http --compact: three tools over the same catalogue', () => {
  let server: HttpMcpServer;
  let mcp: Client;

  beforeAll(async () => {
    server = await startHttpMcp(['--compact']);
    mcp = await server.connect();
  });
  afterAll(async () => server?.close());

  it('lists find_operations, describe_operation and call_operation only', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['find_operations', 'describe_operation', 'call_operation']);
    expect(JSON.stringify({ tools }).length).toBeLessThan(4000);
  });

  it('finds, describes and calls an operation; a write still refuses in read-only mode', async () => {
    const found = structured(await mcp.callTool({ name: 'find_operations', arguments: { query: 'send message' } }));
    const send = found.tools.find((t: JsonObject) => t.name === 'sendMessage');
    expect(send.operation).toBe('POST /api/v1/messages');
    expect(send.refused).toMatch(/--allow-writes/);
    const all = structured(await mcp.callTool({ name: 'find_operations', arguments: {} }));
    for (const { operation } of operations) expect(all.tools.map((t: JsonObject) => t.name)).toContain(operation.operationId);

    const described = JSON.parse(resultText(await mcp.callTool({ name: 'describe_operation', arguments: { name: 'sendMessage' } })));
    expect(described.inputSchema.$defs.SendMessageRequest.oneOf.length).toBeGreaterThan(1);

    const listed = structured(await mcp.callTool({ name: 'call_operation', arguments: { name: 'listNumbers', arguments: {} } }));
    expect(listed.status).toBe(200);
    const refused = await mcp.callTool({ name: 'call_operation', arguments: { name: 'sendMessage', arguments: { body: { to: '+14155550123', fromNumberId: 'pn_x', body: 'no' } } } });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/--allow-writes/);
    const unknown = await mcp.callTool({ name: 'call_operation', arguments: { name: 'noSuchOperation', arguments: {} } });
    expect(unknown.isError).toBe(true);
  });
});
