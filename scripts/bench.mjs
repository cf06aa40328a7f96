#!/usr/bin/env node
// npm run bench: run every scripts/bench/*.mjs, each in its own Node process (so one bench's
// warm-up, servers or heap do not colour another's), and print one table of what they measured.
//
// The protocol a bench script follows: for each figure it prints one line to stdout
//
//   BENCH {"bench":"client","metric":"request overhead vs raw fetch","value":1.07,"unit":"x","target":"<= 1.15","pass":true}
//
// (`target` and `pass` are optional). Everything else it prints is progress and is passed through
// to stderr. A bench that exits non-zero is reported as failed, with its figures so far.
//
// Usage: node scripts/bench.mjs [name ...]   (names filter by file name, e.g. `client`)
// Exit code: 0 when every bench ran and no figure missed its target; 1 otherwise.

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTools } from './tools-install.mjs';

const benchDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench');
const PREFIX = 'BENCH ';
// The benches that import from a folder with its own install (scripts/tools-install.mjs):
// autocannon (scripts/bench/) and the docs build's libraries (docs/build/).
const TOOLS = { 'mock.mjs': ['bench'], 'store.mjs': ['bench'], 'hosting.mjs': ['bench'], 'docs.mjs': ['docs'] };

function runBench(file) {
  return new Promise((resolve) => {
    // Under tsx: the benches import the package's own TypeScript modules.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(benchDir, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rows = [];
    let pending = '';
    const consume = (line) => {
      if (line.startsWith(PREFIX)) {
        try {
          rows.push(JSON.parse(line.slice(PREFIX.length)));
          return;
        } catch {
          // not a result after all: show it
        }
      }
      if (line !== '') process.stderr.write(`[${file}] ${line}\n`);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(consume);
    });
    child.on('close', (code, signal) => {
      consume(pending);
      resolve({ file, rows, ok: code === 0, exit: signal ?? code });
    });
  });
}

function formatValue(row) {
  const value = typeof row.value === 'number' ? (Number.isInteger(row.value) ? String(row.value) : row.value.toFixed(row.value < 10 ? 3 : 1)) : String(row.value);
  return row.unit ? `${value} ${row.unit}` : value;
}

function printTable(results) {
  const header = ['bench', 'metric', 'value', 'target', 'result'];
  const lines = [];
  for (const { file, rows, ok, exit } of results) {
    for (const row of rows) {
      lines.push([row.bench ?? file.replace(/\.mjs$/, ''), row.metric, formatValue(row), row.target ?? '', row.pass === undefined ? '' : row.pass ? 'ok' : 'MISSED']);
    }
    if (!ok) lines.push([file.replace(/\.mjs$/, ''), '(bench failed)', `exit ${exit}`, '', 'FAILED']);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const format = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));
}

async function main() {
  const filters = process.argv.slice(2);
  const files = readdirSync(benchDir)
    .filter((f) => f.endsWith('.mjs'))
    .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
    .sort();
  if (files.length === 0) {
    console.error(`bench: no bench in scripts/bench/ matches ${filters.join(', ') || '*.mjs'}`);
    process.exitCode = 1;
    return;
  }
  const results = [];
  // One at a time: benches measure time, and would disturb each other when run together.
  for (const file of files) {
    process.stderr.write(`bench: running ${file}\n`);
    ensureTools(TOOLS[file] ?? []);
    results.push(await runBench(file));
  }
  printTable(results);
  const failed = results.some((r) => !r.ok || r.rows.some((row) => row.pass === false));
  process.exitCode = failed ? 1 : 0;
}

main();
