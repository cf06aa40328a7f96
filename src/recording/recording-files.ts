// `--record <dir>` (src/mock/start-mock.ts): each account's recording written to
// `<dir>/<name>.arazzo.json` as the mock runs, shortly after each change (not on every request,
// and only the recordings that changed; the wait grows with what a write costs, so recording
// costs the mock little) and once more when it stops. A file is written whole to a
// temporary name and renamed over the old one, so a reader never sees half a recording. The
// descriptions are named at the mock's address (to-arazzo.ts), so `redocly respect <file>` finds
// them wherever the file is moved.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Recorder } from './recorder.js';
import { recordingText, recordingToArazzo, type ArazzoTarget } from './to-arazzo.js';

/** How long after a change the files are written (ms): the changes of a burst are written once. */
const WRITE_DELAY_MS = 200;

export const RECORDING_SUFFIX = '.arazzo.json';

export interface RecordingFiles {
  /** Writes every recording that changed, now. */
  flush(): void;
  stop(): void;
}

export function writeRecordings(recorder: Recorder, dir: string, target: ArazzoTarget, warn: (line: string) => void): RecordingFiles {
  mkdirSync(dir, { recursive: true });
  const written = new Map<string, string>();
  /** What each recording was when last written (its length and what it left out): unchanged ones are not turned into Arazzo again. */
  const seen = new Map<string, string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failed = false;
  let lastFlushMs = 0;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const started = performance.now();
    for (const recording of recorder.recordings()) {
      const version = `${recording.exchanges.length}:${recording.leftOut}:${recording.bytes}`;
      if (seen.get(recording.name) === version && written.has(recording.name)) continue;
      seen.set(recording.name, version);
      const text = recordingText(recordingToArazzo(recording, target));
      if (written.get(recording.name) === text) continue;
      const file = path.join(dir, `${recording.name}${RECORDING_SUFFIX}`);
      try {
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
        written.set(recording.name, text);
        failed = false;
      } catch (error) {
        if (!failed) warn(`--record: could not write ${file}: ${(error as Error).message}`);
        failed = true;
      }
    }
    // A recording that is gone (the `no-key` one once its sign-up got a key) loses its file.
    const names = new Set(recorder.recordings().map((recording) => recording.name));
    for (const name of written.keys()) {
      if (names.has(name)) continue;
      rmSync(path.join(dir, `${name}${RECORDING_SUFFIX}`), { force: true });
      written.delete(name);
      seen.delete(name);
    }
    lastFlushMs = performance.now() - started;
  };
  const unsubscribe = recorder.onChange(() => {
    // Writing takes at most about a twentieth of the mock's time: many long recordings are written less often.
    timer ??= setTimeout(flush, Math.max(WRITE_DELAY_MS, 20 * lastFlushMs));
    timer.unref?.();
  });
  return {
    flush,
    stop() {
      unsubscribe();
      flush();
    },
  };
}
