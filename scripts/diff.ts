#!/usr/bin/env -S npx tsx
// npm run diff -- <previous> [--current <release>] [--json]
// Compares the current bundled contract (generated/openapi.json and generated/asyncapi.json) with
// a previous release and prints every change classified breaking / non-breaking /
// documentation-only, with its JSON pointer and the operations or events it affects.
// Exit code: 0 no breaking change, 1 breaking changes, 2 usage error. See scripts/diff/.

import { runDiffCli } from './diff/cli.js';

process.exitCode = runDiffCli(process.argv.slice(2));
