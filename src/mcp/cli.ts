// `numbers-api mcp`: the Model Context Protocol server of the contract, over stdio (a client
// starts it) or Streamable HTTP on loopback (--http). Exit code: 0 stopped (the client closed
// stdio, Ctrl-C, SIGTERM), 2 bad usage or a target where nothing answers.
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { runCommand, type CommandSpec } from '../cli/command.js';
import type { CliIo } from '../cli/io.js';
import { MOCK_URL, SHARED, type Parsed } from '../cli/options.js';
import { untilSignal } from '../cli/run-until-signal.js';
import { UsageError } from '../cli/usage-error.js';
import { apiKey, baseUrl, port, token } from '../cli/validators.js';
import { loadOpenApi, readGeneratedJson, listOperations } from '../contract/generated-files.js';
import { isLoopbackHost } from '../mock/control-access.js';
import { startHttpServer } from './http-transport.js';
import { createMcpServer } from './server.js';
import { createMcpService, type McpService } from './service.js';
import { openTarget, TargetError, type Target } from './target.js';

export const MCP = {
  name: 'numbers-api mcp',
  usage: '[--compact] [--allow-writes] [--allow <operationId> ...] [--port <n>] [--http]',
  about: `A Model Context Protocol server whose tools are generated from the contract at start: one per
operation (name from its operationId, input and output schemas from the contract), the
contract's workflows (sign-up, send and wait for delivery, place a call and follow it ...), a
wait for the next event and, on the mock, its control surface (the clock, a checkout, the wallet).
A failed call is a tool error carrying the contract's Error (status, error, code).

Target: the base URL and the key, as listen reads them (a key and no base URL: the mock at
${MOCK_URL}; a base URL and no key: it must be a mock, which takes any key). With
neither, it starts the stateful mock in this process, on a free loopback port (or --port), with
an account of its own: nothing reaches a person or costs money. Any other target is a
deployment, whatever it announces, unless --target-is-mock.

Safe by default: read-only until --allow-writes (a write tool is listed, and refuses saying
how to allow it). Against a deployment, the tools that delete or charge (the contract's
x-effects: the account, a number, a checkout, the 10DLC fee) are refused unless also named one by
one with --allow. The key never appears in a tool result or a log line.`,
  options: {
    'base-url': SHARED['base-url'],
    'api-key': SHARED['api-key'],
    'control-token': SHARED['control-token'],
    'target-is-mock': { type: 'boolean', help: 'the base URL is the numbers-api mock you run (it must announce itself at GET /__mock/about)' },
    compact: { type: 'boolean', help: "three tools (find_operations, describe_operation, call_operation) instead of one per operation: a smaller tool list for a model's context" },
    'allow-writes': { type: 'boolean', help: 'let the tools that change something run' },
    allow: { type: 'string', value: '<id>', multiple: true, help: 'against a deployment, also let this operationId that deletes or charges run, or this workflow whose x-conformance is never (repeatable; needs --allow-writes)' },
    port: { ...SHARED.port, help: 'the port of the mock it starts in this process (default 0: a free one); with --http, the port of the MCP server instead (default 0: a free one, printed)' },
    http: { type: 'boolean', help: 'serve Streamable HTTP on loopback instead of stdio' },
    host: { ...SHARED.host, help: 'with --http: 127.0.0.1 (default), localhost or ::1' },
    token: { type: 'string', value: '<token>', env: 'NUMBERS_API_MCP_TOKEN', help: 'with --http: the bearer token clients must send (default: a random one, printed)' },
    'list-tools': { type: 'boolean', help: "print the tool list as JSON with its size (characters of the tools/list answer, tokens at 4 characters each), then exit" },
    quiet: { ...SHARED.quiet, help: 'no line per tool call (on stderr)' },
  },
} as const satisfies CommandSpec;

function settings({ values, from }: Parsed<typeof MCP.options>) {
  const url = values['base-url'] === undefined ? undefined : baseUrl(values['base-url'], from('base-url'));
  const key = values['api-key'] === undefined ? undefined : apiKey(values['api-key'], from('api-key'));
  const allow = values.allow ?? [];
  if (allow.length > 0) {
    if (!values['allow-writes']) throw new UsageError('--allow lets an operation that deletes, buys, checks out or pays run, so it needs --allow-writes too.');
    const operations = new Set(listOperations(loadOpenApi()).map((entry) => String(entry.operation.operationId)));
    const workflows = new Set(((readGeneratedJson('workflows.arazzo.json').workflows ?? []) as Array<{ workflowId: string }>).map((w) => w.workflowId));
    for (const id of allow) if (!operations.has(id) && !workflows.has(id)) throw new UsageError(`--allow ${id}: the contract has no operation or workflow of that id.`);
  }
  if (!values.http) for (const flag of ['host', 'token'] as const) if (values[flag] !== undefined) throw new UsageError(`${from(flag)} is for --http.`);
  if (!values.http && values.port !== undefined && (url || key)) throw new UsageError('--port is the port of the mock this command starts, and with a base URL or a key it starts none (with --http, it is the MCP server\'s port).');
  const host = values.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new UsageError(`--host must be a loopback address (127.0.0.1, localhost or ::1): the MCP server acts with your key; got "${host}".`);
  return {
    ...values,
    baseUrl: url ?? (key ? new URL(MOCK_URL) : undefined),
    apiKey: key,
    controlToken: values['control-token'] === undefined ? undefined : token(values['control-token'], from('control-token')),
    allow,
    port: values.port === undefined ? 0 : port(values.port, from('port')),
    host,
    token: values.token === undefined ? undefined : token(values.token, from('token'), 16),
  };
}

/** The tool list a client is shown, and what it costs a model (characters / 4 is the usual estimate of tokens). */
export function toolListSize(service: McpService): { tools: number; characters: number; tokens: number } {
  const characters = JSON.stringify({ tools: service.list() }).length;
  return { tools: service.list().length, characters, tokens: Math.round(characters / 4) };
}

export async function runMcpCli(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCommand(MCP, argv, io, (parsed) => serve(settings(parsed), io), env);
}

async function serve(parsed: ReturnType<typeof settings>, io: CliIo): Promise<number> {
  let target: Target;
  try {
    target = await openTarget({ baseUrl: parsed.baseUrl, apiKey: parsed.apiKey, controlToken: parsed.controlToken, targetIsMock: parsed['target-is-mock'], mockPort: parsed.http ? 0 : parsed.port, warn: (line) => io.stderr(`numbers-api mcp (mock): ${line}\n`) });
  } catch (error) {
    if (error instanceof TargetError) {
      io.stderr(`numbers-api mcp: ${error.message}. Start the mock (npx numbers-api mock), give the deployment with --base-url and its key with --api-key (or ${SHARED['base-url'].env} and ${SHARED['api-key'].env}), or set neither to use the mock in this process.\n`);
      return 2;
    }
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    io.stderr(`numbers-api mcp: 127.0.0.1:${parsed.port} is already in use; choose another with --port.\n`);
    return 1;
  }
  const version = String(loadOpenApi().info?.version ?? '0.0.0');
  const service = createMcpService({ target, compact: parsed.compact, allowWrites: parsed['allow-writes'], allow: parsed.allow, ...(parsed.quiet ? {} : { log: (line: string) => io.stderr(`${line}\n`) }) });
  const size = toolListSize(service);
  const mode = `${parsed.compact ? 'compact' : 'one tool per operation'}, ${parsed['allow-writes'] ? `writes allowed${parsed.allow.length > 0 ? ` (and ${parsed.allow.join(', ')})` : ''}` : 'read-only'}`;
  const targetLine = `${target.isMock ? 'the numbers-api mock' : 'a deployment (not the mock)'} at ${target.baseUrl.origin}${target.origin === 'in-process mock' ? ', in this process' : ''}`;
  const stop = untilSignal();
  try {
    if (parsed['list-tools']) {
      io.stdout(`${JSON.stringify({ mode: parsed.compact ? 'compact' : 'default', characters: size.characters, tokens: size.tokens, tools: service.list() }, null, 2)}\n`);
      // The list is larger than a pipe's buffer: let it drain before the command exits.
      if (process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once('drain', resolve));
      return 0;
    }
    if (parsed.http) {
      const token = parsed.token ?? randomBytes(24).toString('base64url');
      const http = await startHttpServer(service, { host: parsed.host, port: parsed.port, token, version });
      io.stderr(`numbers-api mcp: ${size.tools} tools (${mode}; about ${size.tokens.toLocaleString('en-US')} tokens) for ${targetLine}.\n`);
      io.stderr(`numbers-api mcp: Streamable HTTP on ${http.url} (Authorization: Bearer ${token}). Ctrl-C stops it.\n`);
      await stop.stopped;
      await http.close();
      return 0;
    }
    const server = createMcpServer(service, version);
    const closed = new Promise<void>((resolve) => (server.onclose = resolve));
    await server.connect(new StdioServerTransport());
    io.stderr(`numbers-api mcp: ${size.tools} tools (${mode}; about ${size.tokens.toLocaleString('en-US')} tokens) for ${targetLine}, over stdio.\n`);
    // The client closing stdin ends the session; Ctrl-C or SIGTERM too.
    process.stdin.once('end', () => void server.close());
    await Promise.race([closed, stop.stopped]);
    await server.close();
    return 0;
  } finally {
    stop.release();
    await target.close();
  }
}
