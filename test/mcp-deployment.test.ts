// `numbers-api mcp` against something that is not the mock: a small HTTP server of this test's own
// on loopback that does not announce itself at GET /__mock/about and records every request. Even
// under --allow-writes, buying a number, deleting the account, a checkout and the 10DLC fee are
// refused unless named with --allow, and the refused request never reaches the server; named,
// it does (the guard is what stopped it). The mock's control surface and the workflows that must
// never run on a deployment are not tools there. A server that announces itself as the mock at
// GET /__mock/about is held to the same rules unless --target-is-mock names it (issue 39). And the
// command's usage errors: one line, exit 2.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { listOperations, type JsonObject } from './helpers/contract.js';
import { connectStdio, resultText, type McpSession } from './helpers/mcp-client.js';
import { startCli } from './helpers/mock-process.js';
import { main } from '../bin/numbers-api.js';

interface Recorded {
  method: string;
  path: string;
  authorization?: string;
}

/**
 * A deployment of this test's own on loopback: it records every request and answers the
 * contract's 404 Error, except `GET /__mock/about` when it is given an announcement to make;
 * `open` starts `numbers-api mcp` on it with `key`.
 */
function deploymentStandIn(key: string, announcement?: object) {
  let server: Server;
  const stand = { baseUrl: '', recorded: [] as Recorded[], sessions: [] as McpSession[] };
  beforeAll(async () => {
    server = createServer((req, res) => {
      stand.recorded.push({ method: req.method ?? '', path: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      req.resume();
      req.on('end', () => {
        if (announcement && req.url === '/__mock/about') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(announcement));
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stand.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(stand.sessions.map((s) => s.close()));
    await new Promise((resolve) => server?.close(resolve));
  });
  const open = async (args: string[]) => {
    const session = await connectStdio(args, { NUMBERS_API_BASE_URL: stand.baseUrl, NUMBERS_API_KEY: key });
    stand.sessions.push(session);
    return session;
  };
  return Object.assign(stand, { open });
}

describe('numbers-api mcp against a base URL that is not the mock', () => {
  const key = 'sk_live_deployment_key_never_shown';
  // Not the mock: nothing announces itself.
  const { recorded, open } = deploymentStandIn(key);

  it('refuses a purchase under --allow-writes without --allow createNumber, and the request never reaches the server', async () => {
    const session = await open(['--allow-writes']);
    const { tools } = await session.client.listTools();
    expect(tools.find((t) => t.name === 'createNumber')!.description).toMatch(/--allow createNumber/);
    const before = recorded.length;
    for (const [name, args] of [
      ['createNumber', { body: {} }],
      ['deleteAccount', {}],
      ['createCreditsCheckout', { body: {} }],
      ['submitTenDlcRegistration', { id: 'pn_x', body: { kind: 'business', brand: {}, campaign: {} } }],
    ] as const) {
      const result = await session.client.callTool({ name, arguments: args as JsonObject });
      expect(result.isError, name).toBe(true);
      expect(resultText(result), name).toContain(`--allow ${name}`);
      expect(resultText(result), name).toMatch(/not the numbers-api mock/);
    }
    expect(recorded.slice(before)).toEqual([]);
    // Only the announcement was asked, with no key.
    expect(recorded.filter((r) => r.path !== '/__mock/about')).toEqual([]);
    expect(recorded.some((r) => r.authorization)).toBe(false);
    // A write that is not guarded is sent (it reaches the deployment, which answers 404).
    const sent = await session.client.callTool({ name: 'sendMessage', arguments: { body: { to: '+14155550123', fromNumberId: 'pn_x', body: 'hi' } } });
    expect(JSON.parse(resultText(sent)).status).toBe(404);
    expect(recorded.at(-1)).toEqual({ method: 'POST', path: '/api/v1/messages', authorization: `Bearer ${key}` });
    expect(session.stderr()).not.toContain(key);
  });

  it('sends the purchase once it is named with --allow createNumber (the guard is what stopped it)', async () => {
    const session = await open(['--allow-writes', '--allow', 'createNumber']);
    const result = await session.client.callTool({ name: 'createNumber', arguments: { body: {} } });
    expect(JSON.parse(resultText(result)).status).toBe(404);
    expect(recorded.at(-1)).toEqual({ method: 'POST', path: '/api/v1/numbers', authorization: `Bearer ${key}` });
    const deleted = await session.client.callTool({ name: 'deleteAccount', arguments: {} });
    expect(resultText(deleted)).toContain('--allow deleteAccount');
    expect(recorded.at(-1)!.path).toBe('/api/v1/numbers');
  });

  it('lists no mock control and no workflow that must never run on a deployment; the rest ask for every input', async () => {
    const session = await open([]);
    const { tools } = await session.client.listTools();
    const names = new Set(tools.map((t) => t.name));
    for (const entry of listOperations(readGeneratedJson('mock-control.json'))) expect(names).not.toContain(entry.operation.operationId);
    for (const workflow of readGeneratedJson('workflows.arazzo.json').workflows as JsonObject[]) {
      const tool = tools.find((t) => t.name === `workflow_${workflow.workflowId}`);
      if (workflow['x-conformance'].level === 'never') expect(tool, workflow.workflowId).toBeUndefined();
      else expect(tool!.inputSchema.required ?? [], workflow.workflowId).toEqual(Object.keys(tool!.inputSchema.properties ?? {}));
    }
    expect(names).toContain('workflow_sendListDeliver');
  });
});

describe('numbers-api mcp against a deployment that announces itself as the mock (issue 39)', () => {
  // A gateway that forwards /__mock/about, or anything that copies the mock's answer: the
  // announcement alone never lifts the deployment rules.
  const key = 'sk_live_real_key_behind_an_impostor';
  const stand = deploymentStandIn(key, { mock: 'numbers-api', keys: 'any' });
  const { recorded, open } = stand;

  it('under --allow-writes refuses deleting the account, buying a number and removing a card, and none reaches it', async () => {
    const session = await open(['--allow-writes']);
    expect(session.stderr()).toMatch(/a deployment \(not the mock\)/);
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('mockSetWallet');
    for (const [name, args] of [
      ['deleteAccount', {}],
      ['createNumber', { body: {} }],
      ['deletePaymentMethod', { id: 'pm_1' }],
    ] as const) {
      const result = await session.client.callTool({ name, arguments: args as JsonObject });
      expect(result.isError, name).toBe(true);
      expect(resultText(result), name).toContain(`--allow ${name}`);
    }
    expect(recorded.filter((r) => r.path !== '/__mock/about')).toEqual([]);
  });

  it('is the mock only when named so with --target-is-mock: then its control surface is listed and the guard lifted', async () => {
    const session = await open(['--allow-writes', '--target-is-mock']);
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toContain('mockSetWallet');
    const result = await session.client.callTool({ name: 'createNumber', arguments: { body: {} } });
    expect(JSON.parse(resultText(result)).status).toBe(404);
    expect(recorded.at(-1)).toEqual({ method: 'POST', path: '/api/v1/numbers', authorization: `Bearer ${key}` });
  });

  it('refuses --target-is-mock for a target that does not announce itself: one line, exit 2', async () => {
    let stderr = '';
    const code = await main(['mcp', '--target-is-mock', '--base-url', `${stand.baseUrl}/elsewhere`], { stdout: () => {}, stderr: (text) => (stderr += text) });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toMatch(/^numbers-api mcp: --target-is-mock, but http:\/\/127\.0\.0\.1:\d+ does not announce itself/);
  });
});

describe('numbers-api mcp usage errors: one line, exit code 2', () => {
  /** The command's own entry (bin/numbers-api.ts `main`), in this process: what it prints and returns. */
  const run = async (args: string[]) => {
    let stderr = '';
    const code = await main(['mcp', ...args], { stdout: () => {}, stderr: (text) => (stderr += text) });
    return { code, stderr };
  };

  it.each([
    [['--allow', 'createNumber'], /needs --allow-writes/],
    [['--allow-writes', '--allow', 'buyEverything'], /no operation or workflow of that id/],
    [['--http', '--host', '0.0.0.0'], /loopback/],
    [['--base-url', 'http://127.0.0.1:9', '--port', '3333'], /--port is the port of the mock this command starts/],
    [['--host', 'localhost'], /--host is for --http/],
    [['--base-url', 'ftp://example.com'], /http:\/\/ or https:\/\//],
    [['--base-url', 'http://127.0.0.1:9'], /nothing answers at http:\/\/127\.0\.0\.1:9/],
  ])('numbers-api mcp %j', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.split('\n')[0]).toMatch(/^numbers-api mcp: /);
  });

  it('the real command: an unknown option, one line and exit 2', async () => {
    const cli = startCli(['mcp', '--bogus']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^numbers-api mcp: Unknown option '--bogus'/);
  });
});
