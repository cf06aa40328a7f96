// `numbers-api mcp` against something that is not the mock: a small HTTP server of this test's own
// on loopback that does not announce itself at GET /__mock/about and records every request. Even
// under --allow-writes, buying a number, deleting the account, a checkout and the 10DLC fee are
// refused unless named with --allow, and the refused request never reaches the server; named,
// it does (the guard is what stopped it). The mock's control surface and the workflows that must
// never run on a deployment are not tools there. And the command's usage errors: one line, exit 2.
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

describe('numbers-api mcp against a base URL that is not the mock', () => {
  let deployment: Server;
  let baseUrl: string;
  const recorded: Recorded[] = [];
  const key = 'sk_live_deployment_key_never_shown';
  const sessions: McpSession[] = [];
  const open = async (args: string[]) => {
    const session = await connectStdio(args, { NUMBERS_API_BASE_URL: baseUrl, NUMBERS_API_KEY: key });
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    deployment = createServer((req, res) => {
      recorded.push({ method: req.method ?? '', path: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      req.resume();
      // Not the mock: nothing announces itself; every operation answers the contract's 404 Error.
      req.on('end', () => res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' })));
    });
    await new Promise<void>((resolve) => deployment.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(deployment.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await new Promise((resolve) => deployment?.close(resolve));
  });

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
