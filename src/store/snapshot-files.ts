// Snapshots of the file store kept beside its state file (`<file>.snapshots/<name>.json`), and
// snapshot files a team commits (`--snapshot <file>`): read, checked, written atomically (mode
// 600: a snapshot holds full API keys).
import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { snapshotFileProblem } from './snapshots.js';
import type { SnapshotFile } from './store.js';
import { withoutPrototype } from '../simulator/state.js';
import type { SnapshotKeeping } from './memory-store.js';
import { writeFileAtomic } from './state-file.js';

/** The directory of the snapshots kept beside a state file. */
export const snapshotsDirOf = (stateFile: string): string => `${stateFile}.snapshots`;

/** A snapshot file, checked; an error naming the file and what is wrong with it. */
export function readSnapshotFile(file: string, check: (state: SnapshotFile['state']) => string[] = () => []): SnapshotFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'), withoutPrototype);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${file} does not exist.` : `${file} is not JSON: ${(error as Error).message}`);
  }
  const problem = snapshotFileProblem(parsed);
  if (problem) throw new Error(`${file} is not a snapshot of this mock: ${problem}.`);
  const problems = check((parsed as SnapshotFile).state);
  if (problems.length > 0) throw new Error(`${file} is not a valid snapshot of this mock: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` ... and ${problems.length - 3} more` : ''}.`);
  return parsed as SnapshotFile;
}

/** The snapshots kept beside `stateFile`; one that cannot be read is said and left out. */
export function readSnapshotsBeside(stateFile: string, warn: (line: string) => void): SnapshotFile[] {
  const dir = snapshotsDirOf(stateFile);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const files: SnapshotFile[] = [];
  for (const name of names.sort()) {
    try {
      files.push(readSnapshotFile(path.join(dir, name)));
    } catch (error) {
      warn(`--state: ${(error as Error).message} Left out.`);
    }
  }
  return files;
}

/** Where the file store keeps its snapshots: one file each beside the state file. */
export function snapshotsBeside(stateFile: string): Required<SnapshotKeeping> {
  const dir = snapshotsDirOf(stateFile);
  return {
    save(file, text) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomic(path.join(dir, `${file.snapshot}.json`), [text]);
    },
    remove(name) {
      try {
        unlinkSync(path.join(dir, `${name}.json`));
      } catch {
        // never written, or gone already
      }
    },
  };
}
