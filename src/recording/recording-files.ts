// `--record <dir>` (src/mock/start-mock.ts): each account's recording written to
// `<dir>/<name>.arazzo.json` as the mock runs, shortly after each change (not on every request,
// and only the recordings that changed; the wait grows with what making the texts costs, so
// recording costs the mock little) and once more when it stops. A file is written whole to a
// temporary name and renamed over the old one, so a reader never sees half a recording; the
// writes are the disk's, off the event loop (a rename over a file waits for the disk: 2 ms a
// file on ext4, which blocked every request while 100 recordings were written), one batch at a
// time, so a file's writes land in order. The descriptions are named at the mock's address
// (to-arazzo.ts), so `redocly respect <file>` finds them wherever the file is moved.
import { mkdirSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Recorder } from './recorder.js';
import { recordingFileText, type ArazzoTarget } from './to-arazzo.js';

/** How long after a change the files are written (ms): the changes of a burst are written once. */
const WRITE_DELAY_MS = 200;

export const RECORDING_SUFFIX = '.arazzo.json';

export interface RecordingFiles {
  /** The last writes: resolves once every recording is on disk. */
  stop(): Promise<void>;
}

export function writeRecordings(recorder: Recorder, dir: string, target: ArazzoTarget, warn: (line: string) => void): RecordingFiles {
  mkdirSync(dir, { recursive: true });
  const written = new Map<string, string>();
  /** What each recording was when last written (its length and what it left out): unchanged ones are not turned into Arazzo again. */
  const seen = new Map<string, string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failed = false;
  let lastFlushMs = 0;
  /** The batch of writes under way: the next one begins after it. */
  let writing: Promise<void> = Promise.resolve();
  const write = async (name: string, text: string): Promise<void> => {
    const file = path.join(dir, `${name}${RECORDING_SUFFIX}`);
    try {
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
      written.set(name, text);
      failed = false;
    } catch (error) {
      if (!failed) warn(`--record: could not write ${file}: ${(error as Error).message}`);
      failed = true;
    }
  };
  const writeChanged = async (): Promise<void> => {
    const started = performance.now();
    const texts: Array<[string, string]> = [];
    for (const recording of recorder.recordings()) {
      const version = `${recording.exchanges.length}:${recording.leftOut}:${recording.bytes}`;
      if (seen.get(recording.name) === version && written.has(recording.name)) continue;
      seen.set(recording.name, version);
      const text = recordingFileText(recording, target);
      if (written.get(recording.name) !== text) texts.push([recording.name, text]);
    }
    lastFlushMs = performance.now() - started;
    await Promise.all(texts.map(([name, text]) => write(name, text)));
    // A recording that is gone (the `no-key` one once its sign-up got a key) loses its file.
    const names = new Set(recorder.recordings().map((recording) => recording.name));
    for (const name of written.keys()) {
      if (names.has(name)) continue;
      written.delete(name);
      seen.delete(name);
      await rm(path.join(dir, `${name}${RECORDING_SUFFIX}`), { force: true });
    }
  };
  /** Writes every recording that changed, now (after the writes under way); resolves once they are on disk. */
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    return (writing = writing.then(writeChanged));
  };
  const unsubscribe = recorder.onChange(() => {
    // Making the texts takes at most about a twentieth of the mock's time: many long recordings are written less often.
    timer ??= setTimeout(flush, Math.max(WRITE_DELAY_MS, 20 * lastFlushMs));
    timer.unref?.();
  });
  return {
    stop() {
      unsubscribe();
      return flush();
    },
  };
}
