// Where a command line writes: the package's commands (`numbers-api mock`, `listen`, `events`)
// take one, so a test captures what a user would read. Node-only (process).

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Lines that wait for one write together (`batchedLines`). */
export interface LineBatch {
  line(text: string): void;
  /** Writes what waits, now (before another of the command's lines, so the order holds). */
  flush(): void;
}

/** How long a line of the request log may wait for others to be written with (ms), and how much may wait. */
const LINES_WAIT_MS = 25;
const LINES_WAIT_BYTES = 64 * 1024;

/**
 * Lines written together, at most `LINES_WAIT_MS` after the first of them (the request log):
 * stdout on a pipe or a file is written synchronously, a system call a line, which cost a GET
 * half its throughput; a write for every few dozen lines costs a fraction of that.
 */
export function batchedLines(write: (text: string) => void): LineBatch {
  let waiting: string[] = [];
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const text = waiting.join('');
    waiting = [];
    bytes = 0;
    write(text);
  };
  return {
    line(text) {
      waiting.push(`${text}\n`);
      bytes += text.length + 1;
      if (bytes >= LINES_WAIT_BYTES) flush();
      else timer ??= setTimeout(flush, LINES_WAIT_MS);
    },
    flush,
  };
}
