#!/usr/bin/env -S npx tsx
// npm run diff -- <previous> [--current <release>] [--json]
// Compares the current bundled contract (generated/openapi.json and generated/asyncapi.json) with
// a previous release and prints every change classified breaking / non-breaking /
// documentation-only, with its JSON pointer and the operations or events it affects.
// Exit code: 0 no breaking change, 1 breaking changes, 2 usage error.

import { parseArgs } from 'node:util';
import { diffContracts } from './diff/index.js';
import { UsageError, loadRelease } from './diff/load.js';
import { formatReport } from './diff/report.js';

const USAGE = `Usage: npm run diff -- <previous> [--current <release>] [--json]

  <previous>           the release to compare with: a bundled JSON file (openapi.json or
                       asyncapi.json), a directory holding them (e.g. generated/baseline), or a
                       git ref whose generated/ is read (e.g. v1.0.0, HEAD~3, main)
  --current <release>  what to compare (same forms; default: generated/)
  --json               print the result as JSON instead of text
  -h, --help           this help

Exit code: 0 no breaking change, 1 breaking changes, 2 usage error.`;

export function main(argv: string[]): number {
  let values: { current?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { current: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`diff: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`diff: ${positionals.length ? 'expected one previous release, got ' + positionals.length : 'missing the previous release to compare with'}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const previous = loadRelease(positionals[0]!);
    const current = loadRelease(values.current ?? 'generated');
    const result = diffContracts(previous, current);
    if (values.json) {
      const out = { previous: { source: previous.source, version: previous.version }, current: { source: current.source, version: current.version }, ...result };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      process.stdout.write(`${formatReport(result, previous, current)}\n`);
    }
    return result.summary.breaking > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`diff: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
