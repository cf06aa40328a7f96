import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Each slow matrix: the variable its script sets, and the files only it runs. */
const MATRICES: Record<string, string[]> = {
  RENDERED_DOCS: ['test/browser/rendered-docs.test.ts'],
  CONSUMER_TYPES: ['test/packaging-types.test.ts', 'test/packaging.test.ts'],
  GENERATORS: ['test/generators.test.ts'],
  NODE_VERSIONS: ['test/node-versions.test.ts'],
};

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The slow matrices take minutes each, so each is its own script, which .ci/run calls once
    // after `npm test` on every Node line: every operation in three renderers (`npm run
    // test:renderers`), the packed tarballs in an empty project and the consumer projects' type
    // checks (`npm run test:consumers`: sixteen tsc runs, half with skipLibCheck off), the code
    // generators (`npm run test:generators`) and a binary of every supported Node line fetched from
    // the registry (`npm run test:node-versions`).
    exclude: Object.entries(MATRICES).flatMap(([variable, files]) => (process.env[variable] === '1' ? [] : files)),
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
