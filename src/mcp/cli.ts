// `numbers-api mcp`: the Model Context Protocol server of the contract, over stdio (a client
// starts it) or Streamable HTTP on loopback (--http). Exit code: 0 stopped (the client closed
// stdio, Ctrl-C, SIGTERM), 2 bad usage or a target where nothing answers.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadOpenApi, readGeneratedJson, listOperations } from '../contract/generated-files.js';
import { API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL, parseBaseUrl as parseListenBaseUrl, UsageError } from '../listen/cli.js';
import type { CliIo } from '../cli-io.js';
import { CONTROL_TOKEN_ENV } from '../mock/cli.js';
import { isLoopbackHost } from '../mock/control-access.js';
import { startHttpServer } from './http-transport.js';
import { createMcpServer } from './server.js';
import { createMcpService, type McpService } from './service.js';
import { openTarget, TargetError, type Target } from './target.js';

/** Where `--token` is read from when not given. */
export const MCP_TOKEN_ENV = 'NUMBERS_API_MCP_TOKEN';

export const MCP_USAGE = `Usage: numbers-api mcp [--compact] [--allow-writes] [--allow <operationId> ...] [--http [--port <n>]]

A Model Context Protocol server whose tools are generated from the contract at start: one per
operation (name from its operationId, input and output schemas from the contract), the
contract's workflows (sign-up, send and wait for delivery, place a call and follow it ...), a
wait for the next event and, on the mock, its control surface (the clock, a checkout, the wallet).
A failed call is a tool error carrying the contract's Error (status, error, code).

Target: the base URL from --base-url, else ${BASE_URL_ENV}, and the key from ${API_KEY_ENV}, as
listen reads them (a key and no base URL: the mock at ${DEFAULT_BASE_URL}; a base URL and no key:
it must be a mock, which takes any key). With neither, it starts the stateful mock in this
process, on a free loopback port, with an account of its own: nothing reaches a person or costs
money. Any other target is a deployment, whatever it announces, unless --target-is-mock.

Safe by default: read-only until --allow-writes (a write tool is listed, and refuses saying
how to allow it). Against a deployment, the tools that delete or charge (the contract's
x-effects: the account, a number, a checkout, the 10DLC fee) are refused unless also named one by
one with --allow. The key never appears in a tool result or a log line.

Options:
  --base-url <url>        the API (or ${BASE_URL_ENV}): a running mock or a deployment
  --target-is-mock        the base URL is the numbers-api mock you run (it must announce itself)
  --compact               three tools (find_operations, describe_operation, call_operation)
                          instead of one per operation: a smaller tool list for a model's context
  --allow-writes          let the tools that change something run
  --allow <id>            against a deployment, also let this operationId that deletes or charges
                          run, or this workflow whose x-conformance is never (repeatable; needs
                          --allow-writes)
  --http                  serve Streamable HTTP on loopback instead of stdio
  --port <n>              with --http: the port (default 0: a free one, printed)
  --host <address>        with --http: 127.0.0.1 (default), localhost or ::1
  --token <token>         with --http: the bearer token clients must send (default: a random one,
                          printed; or ${MCP_TOKEN_ENV})
  --list-tools            print the tool list as JSON with its size (characters of the
                          tools/list answer, tokens at 4 characters each), then exit
  --quiet                 no line per tool call (on stderr)
  -h, --help              this help

Environment: ${API_KEY_ENV}, ${BASE_URL_ENV}, ${CONTROL_TOKEN_ENV} (the token of a mock that asks for
one), ${MCP_TOKEN_ENV}.
`;

interface Parsed {
  help: boolean;
  baseUrl?: URL;
  targetIsMock: boolean;
  compact: boolean;
  allowWrites: boolean;
  allow: string[];
  http: boolean;
  port: number;
  host: string;
  token?: string;
  listTools: boolean;
  quiet: boolean;
}

/** The base URL as `listen` reads it, and whole: a query or fragment would be dropped from every request. */
function parseBaseUrl(input: string, from: string): URL {
  const url = parseListenBaseUrl(input, from);
  if (url.search || url.hash) throw new UsageError(`${from} must not carry a query or a fragment.`);
  return url;
}

function parse(argv: string[], env: NodeJS.ProcessEnv): Parsed {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      'target-is-mock': { type: 'boolean', default: false },
      compact: { type: 'boolean', default: false },
      'allow-writes': { type: 'boolean', default: false },
      allow: { type: 'string', multiple: true },
      http: { type: 'boolean', default: false },
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'list-tools': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true, targetIsMock: false, compact: false, allowWrites: false, allow: [], http: false, port: 0, host: '127.0.0.1', listTools: false, quiet: false };
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}".`);
  const fromEnv = env[BASE_URL_ENV];
  const baseUrl = values['base-url'] !== undefined ? parseBaseUrl(values['base-url'], '--base-url') : fromEnv ? parseBaseUrl(fromEnv, BASE_URL_ENV) : undefined;
  const allow = values.allow ?? [];
  if (allow.length > 0) {
    if (!values['allow-writes']) throw new UsageError('--allow lets an operation that deletes, buys, checks out or pays run, so it needs --allow-writes too.');
    const operations = new Set(listOperations(loadOpenApi()).map((entry) => String(entry.operation.operationId)));
    const workflows = new Set(((readGeneratedJson('workflows.arazzo.json').workflows ?? []) as Array<{ workflowId: string }>).map((w) => w.workflowId));
    for (const id of allow) if (!operations.has(id) && !workflows.has(id)) throw new UsageError(`--allow ${id}: the contract has no operation or workflow of that id.`);
  }
  if (!values.http) for (const flag of ['port', 'host', 'token'] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} is for --http.`);
  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port must be a port number from 0 to 65535, got "${values.port}".`);
    port = Number(values.port);
  }
  const host = values.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new UsageError(`--host must be a loopback address (127.0.0.1, localhost or ::1): the MCP server acts with your key; got "${host}".`);
  const token = values.token ?? (env[MCP_TOKEN_ENV] || undefined);
  if (token !== undefined && !/^[\x21-\x7e]{16,200}$/.test(token)) throw new UsageError('--token must be 16 to 200 visible ASCII characters.');
  return { help: false, ...(baseUrl ? { baseUrl } : {}), targetIsMock: values['target-is-mock'], compact: values.compact, allowWrites: values['allow-writes'], allow, http: values.http, port, host, ...(token ? { token } : {}), listTools: values['list-tools'], quiet: values.quiet };
}

/** The tool list a client is shown, and what it costs a model (characters / 4 is the usual estimate of tokens). */
export function toolListSize(service: McpService): { tools: number; characters: number; tokens: number } {
  const characters = JSON.stringify({ tools: service.list() }).length;
  return { tools: service.list().length, characters, tokens: Math.round(characters / 4) };
}

function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function runMcpCli(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parse(argv, env);
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`numbers-api mcp: ${(error as Error).message}\n\nRun numbers-api mcp --help for the options.\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    io.stdout(MCP_USAGE);
    return 0;
  }
  let target: Target;
  try {
    target = await openTarget({
      ...(parsed.baseUrl ? { baseUrl: parsed.baseUrl } : {}),
      ...(env[API_KEY_ENV] ? { apiKey: env[API_KEY_ENV] } : {}),
      ...(env[CONTROL_TOKEN_ENV] ? { controlToken: env[CONTROL_TOKEN_ENV] } : {}),
      targetIsMock: parsed.targetIsMock,
      warn: (line) => io.stderr(`numbers-api mcp (mock): ${line}\n`),
    });
  } catch (error) {
    if (error instanceof TargetError) {
      io.stderr(`numbers-api mcp: ${error.message}. Start the mock (npx numbers-api mock), give the deployment with --base-url or ${BASE_URL_ENV} and its key in ${API_KEY_ENV}, or set neither to use the mock in this process.\n`);
      return 2;
    }
    throw error;
  }
  const version = String(loadOpenApi().info?.version ?? '0.0.0');
  const service = createMcpService({ target, compact: parsed.compact, allowWrites: parsed.allowWrites, allow: parsed.allow, ...(parsed.quiet ? {} : { log: (line: string) => io.stderr(`${line}\n`) }) });
  const size = toolListSize(service);
  const mode = `${parsed.compact ? 'compact' : 'one tool per operation'}, ${parsed.allowWrites ? `writes allowed${parsed.allow.length > 0 ? ` (and ${parsed.allow.join(', ')})` : ''}` : 'read-only'}`;
  const targetLine = `${target.isMock ? 'the numbers-api mock' : 'a deployment (not the mock)'} at ${target.baseUrl.origin}${target.origin === 'in-process mock' ? ', in this process' : ''}`;
  try {
    if (parsed.listTools) {
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
      await stopSignal();
      await http.close();
      return 0;
    }
    const server = createMcpServer(service, version);
    const closed = new Promise<void>((resolve) => (server.onclose = resolve));
    await server.connect(new StdioServerTransport());
    io.stderr(`numbers-api mcp: ${size.tools} tools (${mode}; about ${size.tokens.toLocaleString('en-US')} tokens) for ${targetLine}, over stdio.\n`);
    // The client closing stdin ends the session; Ctrl-C or SIGTERM too.
    process.stdin.once('end', () => void server.close());
    await Promise.race([closed, stopSignal()]);
    await server.close();
    return 0;
  } finally {
    await target.close();
  }
}
