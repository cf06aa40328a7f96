#!/usr/bin/env node
// What an account costs the stateful mock, and what its bounds come to (part of `npm run bench`;
// protocol in scripts/bench.mjs). Issue 27, item 4: memory used to grow by about 16 KB per key,
// with no cap, until the process died.
//
// 1. Heap per account: the stateful mock in this process (node:http before the core pipeline);
//    ACCOUNTS new keys each open an account from the demo seed (GET /api/v1/account); the heap
//    after full collections, before and after, divided by ACCOUNTS.
// 2. The default cap on live accounts times that, beside this process's heap limit: the cap is
//    meant to fit with room to spare.
// 3. An account filled with 4,096-character messages (the contract's inferred limit) until its
//    history rolls over: how much it holds as JSON, beside the default per-account bound
//    (src/simulator/account-bounds.ts), which it should stay well below.
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchOutput, root } from '../bench-support.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const load = (file) => import(pathToFileURL(path.join(root, file)).href);
const { startMock } = await load('src/mock/start-mock.ts');
const { DEFAULT_MAX_ACCOUNTS, DEFAULT_MAX_ACCOUNT_BYTES } = await load('src/simulator/account-bounds.ts');

const ACCOUNTS = Number(process.env.ACCOUNTS_BENCH_KEYS ?? 2000);
const { emit, progress } = benchOutput('accounts');

function heapUsed() {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function get(base, key, path) {
  const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

const mock = await startMock({ port: 0, maxAccounts: ACCOUNTS * 2 });
try {
  await get(mock.url, 'sk_live_bench_warm_up', '/api/v1/account');
  const before = heapUsed();
  progress(`opening ${ACCOUNTS} accounts`);
  for (let i = 0; i < ACCOUNTS; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, ACCOUNTS - i) }, (_, j) => get(mock.url, `sk_live_bench_${i + j}_account`, '/api/v1/account')));
  }
  const after = heapUsed();
  const perAccount = (after - before) / ACCOUNTS;
  const limit = v8.getHeapStatistics().heap_size_limit;
  emit({ metric: 'heap per account (demo seed, opened by a key)', value: Math.round(perAccount / 102.4) / 10, unit: 'KB' });
  emit({ metric: 'default cap on live accounts (--max-accounts)', value: DEFAULT_MAX_ACCOUNTS, unit: 'accounts' });
  const atCap = (perAccount * DEFAULT_MAX_ACCOUNTS) / 1024 / 1024;
  emit({ metric: 'heap at the default cap', value: Math.round(atCap), unit: 'MB', target: `< 25% of this heap limit (${Math.round(limit / 1024 / 1024)} MB)`, pass: atCap < (limit / 1024 / 1024) * 0.25 });

  progress('filling one account with 4,096-character messages');
  const key = 'sk_live_bench_full_account';
  for (let i = 0; i < 600; i++) {
    const response = await fetch(`${mock.url}/api/v1/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'x'.repeat(4096) }),
    });
    await response.arrayBuffer();
  }
  const account = Object.values(mock.simulator.state.accounts).find((candidate) => candidate.keys.includes(key));
  const held = JSON.stringify(account).length / 1024 / 1024;
  emit({
    metric: 'one account after 600 sends of 4,096 characters (JSON)',
    value: Math.round(held * 10) / 10,
    unit: 'MB',
    target: `< half the per-account bound (${DEFAULT_MAX_ACCOUNT_BYTES / 1024 / 1024} MB)`,
    pass: held < DEFAULT_MAX_ACCOUNT_BYTES / 1024 / 1024 / 2,
  });
} finally {
  await mock.close();
}
