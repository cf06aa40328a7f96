// The command line of `npm run diff` (scripts/diff.ts runs it): argument parsing, loading both
// releases, the text or JSON report, and the exit code.

import path from 'node:path';
import { runCommand, type CommandSpec } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { readRecordings, RecordingFileError, type RecordingFile } from '../../src/recording/recording-files-read.js';
import { formatChangelog } from './changelog.js';
import { diffContracts } from './index.js';
import { loadRelease } from './load.js';
import { formatReport } from './report.js';

export const DIFF = {
  name: 'npm run diff --',
  label: 'diff',
  usage: '<previous> [--current <release>] [--recordings <dir>] [--json | --changelog]',
  about: `  <previous>           the release to compare with: a bundled JSON file (openapi.json or
                       asyncapi.json), a directory holding them (e.g. generated/baseline), or a
                       git ref whose generated/ is read (e.g. v1.0.0, HEAD~3, main)`,
  options: {
    current: { type: 'string', value: '<release>', help: 'what to compare (same forms; default: generated/)' },
    recordings: { type: 'string', value: '<dir>', help: 'recordings made on the mock (numbers-api mock --record <dir>): names each recording a breaking change breaks ("breaks recording checkout-flow") and the breaking changes that touch none of them' },
    json: { type: 'boolean', help: 'print the result as JSON instead of text' },
    changelog: { type: 'boolean', help: 'print a draft CHANGELOG.md section (what changed, who is affected, what to do) instead of the report' },
  },
  notes: 'Exit code: 0 no breaking change, 1 breaking changes, 2 usage error.',
  positionals: true,
} as const satisfies CommandSpec;

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
  return runCommand(DIFF, argv, { stdout: io.out, stderr: io.err }, ({ values, positionals }) => {
    if (values.json && values.changelog) throw new UsageError('--json and --changelog cannot be combined.');
    if (positionals.length !== 1) throw new UsageError(positionals.length ? `expected one previous release, got ${positionals.length}.` : 'missing the previous release to compare with.');
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
  });
}
