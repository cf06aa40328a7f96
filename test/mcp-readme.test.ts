// The MCP guide (docs/guides/mcp.md), as a reader uses it: each client configuration is the shape
// that client documents (Claude Desktop's claude_desktop_config.json, VS Code's .vscode/mcp.json,
// Cursor's .cursor/mcp.json) and each server it names starts and answers the SDK's client; each
// `npx numbers-api mcp` line runs; the tool-list sizes it states are what the server lists.
// `npx numbers-api` is the clone's command (bin/numbers-api.ts), as in test/docs-commands.test.ts;
// a deployment's or a running mock's address is a mock this test starts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaAjv } from '../src/contract/contract-validator.js';
import { toolListSize } from '../src/mcp/cli.js';
import { createMcpService } from '../src/mcp/service.js';
import { repoRoot, type JsonObject } from './helpers/contract.js';
import { connectStdio, startHttpMcp, type HttpMcpServer, type McpSession } from './helpers/mcp-client.js';
import { cliEntry, freePort } from './helpers/mock-process.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';


const section = readFileSync(path.join(repoRoot, 'docs/guides/mcp.md'), 'utf8');
const configs = new Map([...section.matchAll(/^```json (\S+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, JSON.parse(m[2]!) as JsonObject]));
const lines = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1]!.split('\n').map((line) => line.replace(/\s{2,}#.*$/, '').trim()).filter(Boolean));

const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const strings = { type: 'array', items: { type: 'string' } };
const stdioEntry = { type: 'object', required: ['command'], properties: { command: { type: 'string' }, args: strings, env: stringMap }, additionalProperties: false };
const remoteEntry = { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, headers: stringMap }, additionalProperties: false };
/** Each client's documented configuration file, as a schema (a misspelt key, `servers` for `mcpServers`, fails). */
const CLIENT_SHAPES: Record<string, { documented: string; schema: JsonObject }> = {
  // modelcontextprotocol.io, "Connect to local MCP servers": mcpServers → {command, args, env}.
  'claude_desktop_config.json': {
    documented: 'https://modelcontextprotocol.io/docs/develop/connect-local-servers',
    schema: { type: 'object', required: ['mcpServers'], properties: { mcpServers: { type: 'object', minProperties: 1, additionalProperties: stdioEntry } }, additionalProperties: false },
  },
  // VS Code, "MCP configuration reference": servers → {type: stdio, command, args, env} or {type: http|sse, url, headers}; inputs → promptString.
  '.vscode/mcp.json': {
    documented: 'https://code.visualstudio.com/docs/copilot/reference/mcp-configuration',
    schema: {
      type: 'object',
      required: ['servers'],
      properties: {
        inputs: {
          type: 'array',
          items: { type: 'object', required: ['type', 'id', 'description'], properties: { type: { const: 'promptString' }, id: { type: 'string' }, description: { type: 'string' }, password: { type: 'boolean' } }, additionalProperties: false },
        },
        servers: {
          type: 'object',
          minProperties: 1,
          additionalProperties: {
            oneOf: [
              { ...stdioEntry, required: ['type', 'command'], properties: { ...stdioEntry.properties, type: { const: 'stdio' } } },
              { ...remoteEntry, required: ['type', 'url'], properties: { ...remoteEntry.properties, type: { enum: ['http', 'sse'] } } },
            ],
          },
        },
      },
      additionalProperties: false,
    },
  },
  // Cursor, "Model Context Protocol": mcpServers → {command, args, env} or {url, headers}.
  '.cursor/mcp.json': {
    documented: 'https://cursor.com/docs/context/mcp',
    schema: { type: 'object', required: ['mcpServers'], properties: { mcpServers: { type: 'object', minProperties: 1, additionalProperties: { oneOf: [stdioEntry, remoteEntry] } } }, additionalProperties: false },
  },
};

let mock: StatefulMock;
const key = newKey('readme');
const sessions: McpSession[] = [];
const servers: HttpMcpServer[] = [];

beforeAll(async () => {
  mock = await startStatefulMock();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await Promise.all(servers.map((s) => s.close()));
  await mock?.close();
});

/** A configuration value as the reader's client would make it here: inputs filled, addresses the test's. */
function filled(value: string, inputs: Record<string, string>): string {
  return value
    .replace(/\$\{input:([^}]+)\}/g, (_all, id: string) => inputs[id] ?? '')
    .replace('https://api.example.com', mock.url)
    .replace('http://127.0.0.1:4010', mock.url);
}

/** The server a stdio entry names (`npx -y numbers-api mcp ...`), started as the clone's command. */
async function startStdioEntry(entry: JsonObject, inputs: Record<string, string>): Promise<Client> {
  expect(entry.command).toBe('npx');
  expect(entry.args.slice(0, 3)).toEqual(['-y', 'numbers-api', 'mcp']);
  const env = Object.fromEntries(Object.entries((entry.env ?? {}) as Record<string, string>).map(([name, value]) => [name, filled(value, inputs)]));
  const session = await connectStdio(entry.args.slice(3), env);
  sessions.push(session);
  return session.client;
}

describe("the MCP guide's client configurations", () => {
  it('has one for each of Claude Desktop, VS Code and Cursor', () => {
    expect([...configs.keys()].sort()).toEqual(Object.keys(CLIENT_SHAPES).sort());
  });

  it.each(Object.entries(CLIENT_SHAPES))('%s is the shape the client documents', (file, { documented, schema }) => {
    const ajv = jsonSchemaAjv();
    const validate = ajv.compile(schema);
    expect(validate(configs.get(file)), `${documented}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  });

  it.each([...configs.keys()])('every server %s names starts and lists the tools of the contract', async (file) => {
    const config = configs.get(file)!;
    const token = 'readme-token-0123456789abcdef';
    const inputs = { 'numbers-api-key': key, 'numbers-api-mcp-token': token };
    for (const entry of Object.values((config.mcpServers ?? config.servers) as Record<string, JsonObject>)) {
      let client: Client;
      if (entry.url) {
        // A server the reader started with `npx numbers-api mcp --http --port <port>`: here on a free port, with the token the input gives.
        const url = new URL(entry.url);
        const server = await startHttpMcp(['--port', String(await freePort()), '--token', token]);
        servers.push(server);
        expect(new URL(server.url).pathname).toBe(url.pathname);
        const headers = Object.fromEntries(Object.entries((entry.headers ?? {}) as Record<string, string>).map(([name, value]) => [name, filled(value, inputs)]));
        client = await server.connect(headers);
      } else {
        client = await startStdioEntry(entry, inputs);
      }
      const { tools } = await client.listTools();
      const compact = entry.args?.includes('--compact');
      expect(tools.map((t) => t.name)).toContain(compact ? 'call_operation' : 'sendMessage');
      const numbers = compact
        ? await client.callTool({ name: 'call_operation', arguments: { name: 'listNumbers', arguments: {} } })
        : await client.callTool({ name: 'listNumbers', arguments: {} });
      expect(numbers.isError, JSON.stringify(numbers)).toBeFalsy();
    }
  });
});

describe("the MCP guide's numbers-api mcp lines", () => {
  const mcpLines = lines.filter((line) => /^npx numbers-api mcp\b/.test(line));

  it('are there, and the deployment line is the only other one', () => {
    expect(mcpLines.length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((line) => !mcpLines.includes(line)).every((line) => line.includes('api.example.com'))).toBe(true);
  });

  it.each(mcpLines)('%s', async (line) => {
    const args = line.replace(/^npx numbers-api mcp\s*/, '').split(/\s+/).filter(Boolean);
    if (args.includes('--list-tools')) {
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['--import', 'tsx', cliEntry, 'mcp', ...args], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, out) => (error ? reject(error) : resolve(out))),
      );
      const listed = JSON.parse(stdout) as { tools: unknown[]; characters: number; tokens: number };
      expect(listed.characters).toBe(JSON.stringify({ tools: listed.tools }).length);
      expect(listed.tokens).toBe(Math.round(listed.characters / 4));
      return;
    }
    // A port the line names is a free one here: over stdio the in-process mock's, with --http the server's.
    const portAt = args.indexOf('--port');
    if (portAt >= 0) args[portAt + 1] = String(await freePort());
    if (args.includes('--http')) {
      const server = await startHttpMcp(args.filter((a) => a !== '--http'));
      servers.push(server);
      const { tools } = await (await server.connect()).listTools();
      expect(tools.length).toBeGreaterThan(3);
      return;
    }
    const session = await connectStdio(args);
    sessions.push(session);
    expect((await session.client.listTools()).tools.length).toBeGreaterThan(3);
    if (portAt >= 0) {
      expect(session.stderr()).toContain(`the numbers-api mock at http://127.0.0.1:${args[portAt + 1]}, in this process`);
      expect((await fetch(`http://127.0.0.1:${args[portAt + 1]}/__mock/about`)).status).toBe(200);
    }
  });
});

describe("the MCP guide's tool-list sizes", () => {
  const table = /<!-- mcp-tool-list:start -->([\s\S]*?)<!-- mcp-tool-list:end -->/.exec(section)?.[1] ?? '';
  const stated = (label: RegExp) => {
    const row = table.split('\n').find((l) => label.test(l));
    const m = /\|\s*(\d+)\s*\|\s*([\d,]+) characters\s*\|\s*([\d,]+)\s*\|\s*$/.exec(row ?? '');
    return m ? { tools: Number(m[1]), characters: Number(m[2]!.replace(/,/g, '')), tokens: Number(m[3]!.replace(/,/g, '')) } : undefined;
  };
  const measured = (compact: boolean) =>
    toolListSize(createMcpService({ target: { baseUrl: new URL('http://127.0.0.1:4010'), apiKey: 'sk_live_size', isMock: true, origin: 'in-process mock' }, compact }));

  it.each([
    ['one tool per operation', /^\| one tool per operation/, false],
    ['--compact', /^\| `--compact`/, true],
  ] as const)('%s: the tools, characters and tokens stated are what the server lists (within 10%%)', (_name, label, compact) => {
    const claim = stated(label);
    expect(claim, 'docs/guides/mcp.md states it in the mcp-tool-list table').toBeDefined();
    const actual = measured(compact);
    expect(actual.tools).toBe(claim!.tools);
    expect(Math.abs(actual.characters - claim!.characters) / claim!.characters, `${actual.characters} characters`).toBeLessThanOrEqual(0.1);
    expect(claim!.tokens).toBe(Math.round(claim!.characters / 4));
  });
});
