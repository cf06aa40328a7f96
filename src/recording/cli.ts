// `numbers-api recordings summarize <dir|file> [--json]`: what a set of recordings (made with
// `numbers-api mock --record <dir>`) depends on. Exit 0, or 2 with one line on bad usage or a bad
// recording file.
import { runCommand, runGroup, type CommandSpec } from '../cli/command.js';
import type { CliIo } from '../cli/io.js';
import type { Parsed } from '../cli/options.js';
import { UsageError } from '../cli/usage-error.js';
import { readRecordings, RecordingFileError } from './recording-files-read.js';
import { formatSummary, summarizeRecordings } from './summarize.js';

export const SUMMARIZE = {
  name: 'numbers-api recordings summarize',
  usage: '<dir|file> [--json]',
  about: `The operations, statuses, fields and carried values a set of recordings depends on (recordings
are made by numbers-api mock --record <dir>, one <name>.arazzo.json per account).`,
  options: { json: { type: 'boolean', help: 'print the summary as JSON' } },
  positionals: true,
} as const satisfies CommandSpec;

function summarize({ values, positionals }: Parsed<typeof SUMMARIZE.options>, io: CliIo): number {
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'summarize needs a directory or a recording file.' : `one directory or file, got ${positionals.length}.`);
  try {
    const summary = summarizeRecordings(readRecordings(positionals[0]!));
    io.stdout(values.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return 0;
  } catch (error) {
    // What the recordings hold is not a usage error: one line, exit 2.
    if (!(error instanceof RecordingFileError)) throw error;
    io.stderr(`numbers-api recordings: ${error.message}\n`);
    return 2;
  }
}

export const RECORDINGS = {
  name: 'numbers-api recordings',
  commands: {
    summarize: { summary: 'what a set of recordings (mock --record <dir>) depends on: the operations, fields and carried values', run: (argv: string[], io: CliIo) => runCommand(SUMMARIZE, argv, io, (parsed) => summarize(parsed, io)) },
  },
};

export function runRecordingsCli(argv: string[], io: CliIo): number | Promise<number> {
  return runGroup(RECORDINGS, argv, io);
}
