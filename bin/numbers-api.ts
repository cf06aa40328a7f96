#!/usr/bin/env node
// `numbers-api`: the package's command, above everything it runs: the mock, the event source and
// the listening agent (src/) and the conformance suite (conformance/). Each command lives in its
// own module; this file only dispatches and owns the exit code (0 done, 1 failed, 2 bad usage).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { groupHelp, runGroup, type GroupSpec } from '../src/cli/command.js';
import { processIo, type CliIo } from '../src/cli/io.js';
import { runEventsCli } from '../src/event-source/cli.js';
import { runListenCli } from '../src/listen/cli.js';
import { runMockCli } from '../src/mock/cli.js';

// The suite, the proxy, the MCP server (and the SDK it runs on) and the recordings are loaded only
// when asked for, so that the mock and the event source start without them.
export const COMMANDS = {
  name: 'numbers-api',
  notes: `Where: npx numbers-api <command> in a clone of the repository after npm ci (it runs the sources;
npm start is numbers-api mock there) and in a project that installed the numbers-api package (it
runs the build). With nothing installed, npx fetches the package only once it is published.`,
  commands: {
    mock: { summary: 'serve the stateful mock of the API on http://127.0.0.1:4010: every key its own account, validated against the contract (--stateless: the documented examples only)', run: runMockCli },
    events: { summary: 'events send POSTs example events (or your own JSON) to a local webhook or fan-out handler; events list lists the examples it can send', run: runEventsCli },
    listen: { summary: "forward your account's events (events/wait long polls) to local handlers", run: (argv, io) => runListenCli(argv, io) },
    conformance: { summary: 'check a deployment of the API against the contract', run: async (argv) => (await import('../conformance/cli.js')).runConformanceCli(argv) },
    proxy: { summary: 'forward requests to a deployment and check each request and answer against the contract as they pass (a validating proxy)', run: async (argv, io) => (await import('../conformance/proxy.js')).runProxyCli(argv, io) },
    recordings: { summary: 'summarize <dir>: what a set of recordings (mock --record <dir>) depends on: the operations, fields and carried values', run: async (argv, io) => (await import('../src/recording/cli.js')).runRecordingsCli(argv, io) },
    mcp: { summary: 'an MCP server for agents: the operations, workflows and events as tools, over the mock (in-process by default) or a deployment; read-only unless --allow-writes', run: async (argv, io) => (await import('../src/mcp/cli.js')).runMcpCli(argv, io) },
  },
} satisfies GroupSpec;

export const USAGE = groupHelp(COMMANDS);

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return runGroup(COMMANDS, argv, io);
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`numbers-api: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
