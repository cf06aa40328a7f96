#!/usr/bin/env node
// `numbers-api`: the package's command, above everything it runs: the mock, the event source and
// the listening agent (src/) and the conformance suite (conformance/). Each command lives in its
// own module; this file only dispatches and owns the exit code (0 done, 1 failed, 2 bad usage).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runEventsCli } from '../src/event-source/cli.js';
import { runListenCli } from '../src/listen/cli.js';
import { processIo, type CliIo } from '../src/cli-io.js';
import { runMockCli } from '../src/mock/cli.js';

export const USAGE = `Usage: numbers-api <command> [options]

Commands:
  mock           serve the stateful mock of the API on http://127.0.0.1:4010: every key its own
                 account, validated against the contract (--stateless: the documented examples only)
  events send    POST example events (or your own JSON) to a local webhook or fan-out handler
  events list    list the example events that events send can deliver
  listen         forward your account's events (events/wait long polls) to local handlers
  conformance    check a deployment of the API against the contract
  proxy          forward requests to a deployment and check each request and answer against
                 the contract as they pass (a validating proxy)
  recordings     summarize <dir>: what a set of recordings (mock --record <dir>) depends on:
                 the operations, fields and carried values
  mcp            an MCP server for agents: the operations, workflows and events as tools, over
                 the mock (in-process by default) or a deployment; read-only unless --allow-writes

Run numbers-api <command> --help for a command's options.

Where: npx numbers-api <command> in a clone of the repository after npm ci (it runs the sources;
npm start is numbers-api mock there) and in a project that installed the numbers-api package (it
runs the build). With nothing installed, npx fetches the package only once it is published.
`;

// The MCP server (and the SDK it runs on) is loaded only when asked for, as the suite is.
async function loadMcp(): Promise<typeof import('../src/mcp/cli.js')> {
  return import('../src/mcp/cli.js');
}

// The conformance command lives in conformance/cli.ts, loaded only when asked for, so that the
// mock and the event source start without loading the suite.
async function loadConformance(): Promise<typeof import('../conformance/cli.js')> {
  return import('../conformance/cli.js');
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'mock':
      return runMockCli(rest, io);
    case 'events':
      return runEventsCli(rest, io);
    case 'listen':
      return runListenCli(rest, io);
    case 'conformance':
      return (await loadConformance()).runConformanceCli(rest);
    case 'proxy':
      return (await loadConformance()).runConformanceCli(['--proxy', ...rest]);
    case 'mcp':
      return (await loadMcp()).runMcpCli(rest, io);
    case 'recordings':
      return (await import('../src/recording/cli.js')).runRecordingsCli(rest, io);
    case '-h':
    case '--help':
    case 'help':
      io.stdout(USAGE);
      return 0;
    case undefined:
      io.stderr(`numbers-api: a command is needed.\n\n${USAGE}`);
      return 2;
    default:
      io.stderr(`numbers-api: unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
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
