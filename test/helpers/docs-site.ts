// The docs site, built once per test run and shared by the docs test files.
//
// Vitest runs each test file in a worker (a child process with the default forks pool, a thread
// of the vitest process with the threads pool), so the vitest process's pid names the run: the first file to get here builds into a temporary folder named
// after it (under an atomic mkdir lock) and the others wait for that build. Folders of earlier
// runs whose vitest process has gone are removed first.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { buildSite } from '../../docs/build/build.mjs';
import { isAlive } from './mock-process.js';

export interface BuiltSite {
  /** The site folder. */
  dir: string;
  pages: string[];
  /** Operations that got code samples. */
  samples: number;
  counts: { operations: number; channels: number; eventTypes: number; inferred: number };
  links: number;
  /** How long the build took, in ms. */
  ms: number;
}

const PREFIX = 'numbers-api-docs-site-';
/** The pid of the vitest process running this test file. */
const RUN = isMainThread ? process.ppid : process.pid;

function removeStaleSites(): void {
  for (const name of readdirSync(os.tmpdir())) {
    const match = new RegExp(`^${PREFIX}(\\d+)(\\.lock|\\.json)?$`).exec(name);
    if (match && Number(match[1]) !== RUN && !isAlive(Number(match[1]))) {
      rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}

async function waitFor(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the docs build (${file})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let memo: Promise<BuiltSite> | undefined;

/** The site built for this test run (built on first use). */
export function builtDocsSite(): Promise<BuiltSite> {
  memo ??= (async () => {
    const base = path.join(os.tmpdir(), `${PREFIX}${RUN}`);
    const lock = `${base}.lock`;
    const resultFile = `${base}.json`;
    let builder = false;
    try {
      await mkdir(lock);
      builder = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (builder) {
      removeStaleSites();
      let result: object;
      try {
        const built = await buildSite({ out: base });
        result = { ok: true, site: { ...built, dir: base } };
      } catch (error) {
        result = { ok: false, error: (error as Error).message };
      }
      await writeFile(`${resultFile}.tmp`, JSON.stringify(result));
      await rm(resultFile, { force: true });
      // Rename is atomic: waiters never read a half-written result.
      await rename(`${resultFile}.tmp`, resultFile);
    } else {
      await waitFor(resultFile, 180_000);
    }
    const result = JSON.parse(await readFile(resultFile, 'utf8')) as { ok: boolean; site?: BuiltSite; error?: string };
    if (!result.ok || !result.site) throw new Error(`docs build failed: ${result.error}`);
    return result.site;
  })();
  return memo;
}
