// The real `numbers-api mcp` command driven by the MCP SDK's own client: over stdio
// (`StdioClientTransport` spawns bin/numbers-api.ts, which the SDK stops by its own child
// process when the client closes), or over Streamable HTTP (`StreamableHTTPClientTransport` to a
// `--http` server this helper spawns and stops by its process group).
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from './contract.js';
import { cliEntry } from './mock-process.js';

export interface McpSession {
  client: Client;
  /** Everything the server wrote on stderr so far (its log). */
  stderr(): string;
  close(): Promise<void>;
}

/** The environment of a test server: only what is given, the answer check of the suite, and PATH. */
function serverEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NUMBERS_API_MOCK_VALIDATE: 'strict', ...env };
}

/** `numbers-api mcp <args>` over stdio, connected. */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', cliEntry, 'mcp', ...args], cwd: repoRoot, env: serverEnv(env), stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const client = new Client({ name: 'numbers-api-tests', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`numbers-api mcp did not start: ${(error as Error).message}\n${log}`);
  }
  return { client, stderr: () => log, close: () => client.close() };
}

export interface HttpMcpServer {
  url: string;
  token: string;
  stderr(): string;
  connect(headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

/** `numbers-api mcp --http <args>` in its own process group; ready once it prints its URL and token. */
export async function startHttpMcp(args: string[], env: Record<string, string> = {}): Promise<HttpMcpServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', cliEntry, 'mcp', '--http', ...args], { cwd: repoRoot, env: serverEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  };
  const ready = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = (): void => {
      const match = /Streamable HTTP on (\S+) \(Authorization: Bearer (\S+)\)/.exec(log);
      if (match) resolve(match);
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`numbers-api mcp --http exited (${code}) before it was ready:\n${log}`)));
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  const [, url, token] = ready as unknown as [string, string, string];
  const clients: Client[] = [];
  return {
    url,
    token,
    stderr: () => log,
    async connect(headers = { Authorization: `Bearer ${token}` }) {
      const client = new Client({ name: 'numbers-api-tests', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await stop();
    },
  };
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}

/** A tool result's `structuredContent` (the operation's answer as data), untyped as a test reads it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const structured = (result: unknown): any => (result as { structuredContent?: unknown }).structuredContent;
