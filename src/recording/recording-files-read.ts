// Reading recordings from disk (`numbers-api recordings summarize <dir>`, `npm run diff --
// --recordings <dir>`, `conformance --replay <file>`): each file bounded in size, each checked to
// be an Arazzo document with one workflow before it is used. A bad file is a `RecordingFileError`
// whose message is one line naming it.
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../contract/json-pointer.js';
import { RECORDING_SUFFIX } from './recording-files.js';

/** A recording file larger than this is refused (the recorder keeps far less). */
export const MAX_RECORDING_FILE_BYTES = 16 * 1024 * 1024;
/** Recordings read from one directory at most. */
export const MAX_RECORDINGS_PER_DIR = 1000;

export class RecordingFileError extends Error {}

export interface RecordingFile {
  file: string;
  name: string;
  document: JsonObject;
}

function statOf(file: string): Stats {
  try {
    return statSync(file);
  } catch {
    throw new RecordingFileError(`${file} does not exist`);
  }
}

export function readRecordingFile(file: string): RecordingFile {
  const { size } = statOf(file);
  if (size > MAX_RECORDING_FILE_BYTES) throw new RecordingFileError(`${file} is ${size} bytes, more than a recording may be (${MAX_RECORDING_FILE_BYTES})`);
  let document: JsonObject;
  try {
    document = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
  } catch (error) {
    throw new RecordingFileError(`${file} is not JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const workflows = document?.workflows;
  if (typeof document !== 'object' || document === null || !String(document.arazzo ?? '').startsWith('1.0') || !Array.isArray(workflows) || workflows.length === 0 || typeof workflows[0]?.workflowId !== 'string' || !Array.isArray(workflows[0]?.steps)) {
    throw new RecordingFileError(`${file} is not a recording: an Arazzo 1.0 document with a workflow and its steps is expected`);
  }
  return { file, name: String(workflows[0].workflowId), document };
}

/** Every recording in `dir` (`*.arazzo.json`), by file name; a directory or a single file. */
export function readRecordings(dir: string): RecordingFile[] {
  if (statOf(dir).isFile()) return [readRecordingFile(dir)];
  const files = readdirSync(dir).filter((name) => name.endsWith(RECORDING_SUFFIX)).sort();
  if (files.length > MAX_RECORDINGS_PER_DIR) throw new RecordingFileError(`${dir} holds ${files.length} recordings, more than ${MAX_RECORDINGS_PER_DIR}`);
  return files.map((name) => readRecordingFile(path.join(dir, name)));
}
