// Running Redocly Respect (`redocly respect`, @redocly/cli of the main install) on the contract's
// workflows, and the servers it is pointed at in the tests: the stateful mock, a proxy in front of
// it that breaks one rule of the contract, and a loopback HTTP bridge onto the in-process MSW
// handlers.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { getResponse, type HttpHandler } from 'msw';
import { repoRoot } from './contract.js';

export interface RespectRun {
  code: number;
  /** stdout and stderr, as the terminal shows them. */
  output: string;
  /** The `--json-output` report, when the command wrote one. */
  report?: RespectReport;
}

export interface RespectStep {
  stepId: string;
  status: string;
  checks: Array<{ name: string; passed: boolean; message?: string }>;
  response?: { statusCode: number; body?: unknown };
}

export interface RespectWorkflow {
  workflowId: string;
  status: string;
  totalTimeMs: number;
  executedSteps: Array<RespectStep | RespectWorkflow>;
}

export interface RespectReport {
  status: string;
  totalTime: number;
  files: Record<string, { executedWorkflows: RespectWorkflow[] }>;
}

/** The workflows Respect ran at the top level, by id, from its JSON report. */
export function workflowResults(report: RespectReport): RespectWorkflow[] {
  return Object.values(report.files).flatMap((file) => file.executedWorkflows);
}

/** A failed step of a workflow (children included), as `stepId: check (message)` lines. */
export function failedSteps(workflow: RespectWorkflow): string[] {
  return workflow.executedSteps.flatMap((step) =>
    'executedSteps' in step
      ? failedSteps(step)
      : step.checks.filter((c) => !c.passed).map((c) => `${step.stepId}: ${c.name}${c.message ? ` (${c.message.replace(/\s+/g, ' ').slice(0, 300)})` : ''}`),
  );
}

/**
 * Runs a shell command line (a README line, or one built here) in the repository (or in `cwd`),
 * with a JSON report written to a temporary file when `json` is set. Never throws: the exit code
 * is returned.
 */
export async function runRespectCommand(commandLine: string, options: { json?: boolean; cwd?: string } = {}): Promise<RespectRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'respect-'));
  const reportFile = path.join(dir, 'report.json');
  const line = options.json ? `${commandLine} --json-output ${reportFile}` : commandLine;
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(
        'sh',
        ['-c', line],
        { cwd: options.cwd ?? repoRoot, env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0, output: `${stdout}${stderr}` }),
      ),
    );
    let report: RespectReport | undefined;
    try {
      report = JSON.parse(readFileSync(reportFile, 'utf8')) as RespectReport;
    } catch {
      // no report written: the output says why
    }
    return { code, output, report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npx redocly respect generated/workflows.arazzo.yaml` against one base URL for both sources. */
export function respectLine(baseUrl: string, key: string, workflows: string[] = []): string {
  const only = workflows.map((id) => ` -w ${id}`).join('');
  return `npx redocly respect generated/workflows.arazzo.yaml -S numbersApi=${baseUrl} -S mockControl=${baseUrl} -i apiKey=${key}${only}`;
}

export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** One request as a proxy rule sees it, and the answer it may rewrite. */
export interface ProxiedExchange {
  method: string;
  pathname: string;
  requestHeaders: Record<string, string | string[] | undefined>;
  status: number;
  body: unknown;
}

/**
 * A proxy in front of `target` that hands every JSON answer to `rewrite`, which may change its
 * `status` and `body` in place: a server that breaks one rule of the contract, for the tests that
 * show the matching workflow fails.
 */
export async function startRewritingProxy(target: string, rewrite: (exchange: ProxiedExchange) => void): Promise<LoopbackServer> {
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const headers = { ...request.headers };
    delete headers.host;
    delete headers['content-length'];
    const upstream = await fetch(new URL(request.url ?? '/', target), { method: request.method, headers: headers as Record<string, string>, body: body.length > 0 ? new Uint8Array(body) : undefined });
    const text = await upstream.text();
    const exchange: ProxiedExchange = {
      method: request.method ?? 'GET',
      pathname: new URL(request.url ?? '/', target).pathname,
      requestHeaders: request.headers,
      status: upstream.status,
      body: text ? JSON.parse(text) : undefined,
    };
    rewrite(exchange);
    response.writeHead(exchange.status, { 'content-type': 'application/json' });
    response.end(exchange.body === undefined ? '' : JSON.stringify(exchange.body));
  });
  return { url: await listen(server), close: closer(server) };
}

/**
 * A loopback HTTP server that answers every request with the in-process MSW handlers (msw's
 * `getResponse`, as `setupServer` does), asked at `handlersBase`: Respect, which speaks HTTP,
 * runs the workflows through exactly what a vitest or browser app gets from `createHandlers`.
 */
export async function startMswBridge(handlers: HttpHandler[], handlersBase: string): Promise<LoopbackServer> {
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
    const fetchRequest = new Request(new URL(request.url ?? '/', handlersBase), { method: request.method, headers, body: body.length > 0 ? new Uint8Array(body) : undefined });
    const answer = await getResponse(handlers, fetchRequest);
    if (!answer) {
      response.writeHead(599, { 'content-type': 'text/plain' }).end(`no MSW handler for ${request.method} ${request.url}`);
      return;
    }
    const answerHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => (answerHeaders[name] = value));
    response.writeHead(answer.status, answerHeaders);
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  return { url: await listen(server), close: closer(server) };
}
