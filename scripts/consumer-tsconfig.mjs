// The compiler options of a consumer's project, for the checks that compile code as a user of the
// package would (the client bench, the doc comments', guides' and packaging tests): strict,
// NodeNext, Node's types from this repository's node_modules. `more` adds to them or replaces.
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
