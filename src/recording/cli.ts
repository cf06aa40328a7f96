// `numbers-api recordings summarize <dir|file> [--json]`: what a set of recordings (made with
// `numbers-api mock --record <dir>`) depends on. Exit 0, or 2 with one line on bad usage or a bad
// recording file.
import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io.js';
import { readRecordings, RecordingFileError } from './recording-files-read.js';
import { formatSummary, summarizeRecordings } from './summarize.js';

export const RECORDINGS_USAGE = `Usage: numbers-api recordings summarize <dir|file> [--json]

  The operations, statuses, fields and carried values a set of recordings depends on (recordings
  are made by numbers-api mock --record <dir>, one <name>.arazzo.json per account).

  --json      print the summary as JSON
  -h, --help  this help
`;

export function runRecordingsCli(argv: string[], io: CliIo): number {
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
  } catch (error) {
    io.stderr(`numbers-api recordings: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(RECORDINGS_USAGE);
    return 0;
  }
  const [command, target, ...extra] = positionals;
  if (command !== 'summarize' || target === undefined || extra.length > 0) {
    io.stderr(`numbers-api recordings: ${command === undefined ? 'a command is needed: summarize <dir>' : command !== 'summarize' ? `unknown command "${command}" (summarize <dir>)` : target === undefined ? 'summarize needs a directory or a recording file' : `one directory or file, got ${extra.length + 1}`}\n`);
    return 2;
  }
  try {
    const summary = summarizeRecordings(readRecordings(target));
    io.stdout(values.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return 0;
  } catch (error) {
    if (error instanceof RecordingFileError) {
      io.stderr(`numbers-api recordings: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
