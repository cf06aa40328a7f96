// Entry for `npm run conformance` in the repository (through tsx); the installed package runs the
// same function through `numbers-api conformance` (bin/numbers-api.ts).
import { runConformanceCli } from './cli.js';

process.exitCode = await runConformanceCli(process.argv.slice(2));
