// The conformance suite as a vitest project. `runConformanceCli` starts it with startVitest and
// adds the reporters; settings reach the workers through CONFORMANCE_* environment variables.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  // Vite's cache goes to the temporary directory, not beside the suite (which may be inside an
  // installed package).
  cacheDir: path.join(tmpdir(), 'numbers-api-conformance-vite'),
  test: {
    root: here,
    include: ['**/*.conformance.{ts,js}'],
    pool: 'forks',
    // One file at a time in one worker that keeps its modules (isolate: false): the slices share
    // one environment (see define.ts), so one limiter bounds the whole run's concurrency.
    fileParallelism: false,
    isolate: false,
    maxWorkers: 1,
    // Scenarios run concurrently inside a file; the limiter, not this, bounds requests.
    maxConcurrency: 64,
    testTimeout: 10 * 60_000,
    hookTimeout: 60_000,
    // The suite talks to a deployment: one attempt per run, no retries of failed checks.
    retry: 0,
  },
});
