// The command line of `npm run diff` (scripts/diff.ts runs it): argument parsing, loading both
// releases, the text or JSON report, and the exit code.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { readRecordings, RecordingFileError, type RecordingFile } from '../../src/recording/recording-files-read.js';
import { formatChangelog } from './changelog.js';
import { diffContracts } from './index.js';
import { UsageError, loadRelease } from './load.js';
import { formatReport } from './report.js';

export const USAGE = `Usage: npm run diff -- <previous> [--current <release>] [--recordings <dir>] [--json | --changelog]

  <previous>           the release to compare with: a bundled JSON file (openapi.json or
                       asyncapi.json), a directory holding them (e.g. generated/baseline), or a
                       git ref whose generated/ is read (e.g. v1.0.0, HEAD~3, main)
  --current <release>  what to compare (same forms; default: generated/)
  --recordings <dir>   recordings made on the mock (numbers-api mock --record <dir>): names each
                       recording a breaking change breaks ("breaks recording checkout-flow") and
                       the breaking changes that touch none of them
  --json               print the result as JSON instead of text
  --changelog          print a draft CHANGELOG.md section (what changed, who is affected,
                       what to do) instead of the report
  -h, --help           this help

Exit code: 0 no breaking change, 1 breaking changes, 2 usage error.`;

export interface CliIo {
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo: CliIo = {
  cwd: process.cwd(),
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Runs `diff` with these arguments; returns the exit code (0 no breaking change, 1 breaking, 2 usage). */
export function runDiffCli(argv: string[], io: CliIo = processIo): number {
  let values: { current?: string; recordings?: string; json?: boolean; changelog?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { current: { type: 'string' }, recordings: { type: 'string' }, json: { type: 'boolean' }, changelog: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    io.err(`diff: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  if (values.json && values.changelog) {
    io.err(`diff: --json and --changelog cannot be combined\n\n${USAGE}\n`);
    return 2;
  }
  if (positionals.length !== 1) {
    io.err(`diff: ${positionals.length ? `expected one previous release, got ${positionals.length}` : 'missing the previous release to compare with'}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const previous = loadRelease(positionals[0]!, io.cwd);
    const current = loadRelease(values.current ?? 'generated', io.cwd);
    let recordings: RecordingFile[] | undefined;
    try {
      recordings = values.recordings === undefined ? undefined : readRecordings(path.resolve(io.cwd, values.recordings));
    } catch (error) {
      if (!(error instanceof RecordingFileError)) throw error;
      io.err(`diff: --recordings: ${error.message}\n`);
      return 2;
    }
    const result = diffContracts(previous, current, recordings);
    if (values.json) {
      const out = { previous: { source: previous.source, version: previous.version }, current: { source: current.source, version: current.version }, ...result };
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    } else if (values.changelog) {
      io.out(formatChangelog(result, current.version === previous.version ? 'Unreleased' : current.version));
    } else {
      io.out(`${formatReport(result, previous, current)}\n`);
    }
    return result.summary.breaking > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`diff: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
