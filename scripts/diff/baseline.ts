// npm run baseline [-- --force]: records the current bundles as the last released contract
// (generated/baseline/openapi.json and asyncapi.json), which the breaking-change gate
// (test/versioning-gate.test.ts) compares against. The npm script bundles first. Run it when a
// release is cut, once package.json, spec/openapi.yaml and spec/asyncapi.yaml carry the new
// version and CHANGELOG.md has its section.
//
// It refuses (exit 1) when the versions disagree, or when the new release breaks the recorded
// baseline without a major version bump; `--force` records anyway (e.g. while the first release
// is still being written and the baseline only tracks it).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../../src/cli/command.js';
import { processIo } from '../../src/cli/io.js';
import { recordBaseline } from './record-baseline.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const BASELINE = {
  name: 'npm run baseline --',
  label: 'baseline',
  usage: '[--force]',
  about: `Records the current bundles as the last released contract (generated/baseline/), which the
breaking-change gate compares against.`,
  options: { force: { type: 'boolean', help: 'record even when the versions disagree or the release breaks the baseline without a major version' } },
} as const;

process.exitCode = runCommand(BASELINE, process.argv.slice(2), processIo, ({ values }) => {
  const outcome = recordBaseline(repoRoot, { force: values.force === true });
  for (const line of outcome.lines) process.stdout.write(`${line}\n`);
  if (!outcome.recorded) {
    process.stderr.write(`baseline: not recorded:\n${outcome.problems.map((p) => `  - ${p}`).join('\n')}\n(\`npm run baseline -- --force\` records anyway.)\n`);
    return 1;
  }
  if (outcome.problems.length) process.stderr.write(`baseline: recorded despite:\n${outcome.problems.map((p) => `  - ${p}`).join('\n')}\n`);
  return 0;
});
