// The compiler options of a consumer's project, for the checks that compile code as a user of the
// package would (the client bench, the doc comments', guides' and packaging tests): strict,
// NodeNext, Node's types from this repository's node_modules. `more` adds to them or replaces.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export function consumerCompilerOptions(repoRoot, more = {}) {
  return {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(repoRoot, 'node_modules/@types')],
    ...more,
  };
}

/**
 * Writes `dir/tsconfig.json` of a consumer's project in which the package's published names are its
 * sources under src/ (so code samples compile as a user's code would, before any build); `project`
 * adds `files` or `include`.
 */
export function writeSourceConsumerProject(dir, repoRoot, project) {
  const entry = (name) => [path.join(repoRoot, 'src', name)];
  const paths = {
    'numbers-api-contract': entry('index.ts'),
    'numbers-api-contract/client': entry('client/index.ts'),
    'numbers-api-contract/events': entry('events/index.ts'),
    'numbers-api-contract/msw': entry('msw/index.ts'),
  };
  const compilerOptions = consumerCompilerOptions(repoRoot, { lib: ['ES2023', 'DOM'], paths });
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, ...project }));
}
