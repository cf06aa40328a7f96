import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two matrices take minutes, so each is its own script, which .ci/run calls after `npm test`:
    // every operation in three renderers (`npm run test:renderers`) and the consumer projects'
    // type checks (`npm run test:consumers`: sixteen tsc runs, half with skipLibCheck off).
    exclude: [
      ...(process.env.RENDERED_DOCS === '1' ? [] : ['test/browser/rendered-docs.test.ts']),
      ...(process.env.CONSUMER_TYPES === '1' ? [] : ['test/packaging-types.test.ts']),
    ],
    // The generators, validators, docs libraries (and renderers) live in folders with their own
    // install, kept out of `npm ci`'s (scripts/tools-install.mjs): installed here when missing.
    globalSetup: ['test/helpers/tools-setup.ts'],
    // Lint and bundle tests spawn Redocly/Spectral once per file; the mock, conformance and docs
    // tests start real servers and Chromium. Generous limits, but a hang still fails.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests run in worker processes (real servers, child processes), one file per worker.
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on a 2-core machine. Most of a
    // file's time is spent waiting on the servers, browsers and installs it starts, so two files
    // at once on 2 cores take 5 min 18 s where one at a time took 8 min 4 s (same machine, quiet).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    // Every answer the stateful mock composes is checked against the contract; one that breaks it
    // answers 500, so the test that reached it fails (issue 11: zero violations over the suite).
    env: { NUMBERS_API_MOCK_VALIDATE: 'strict' },
  },
});
