// Issue 39: nothing accepted can break the mock's own contract or its state file. JSON.parse reads
// `1e400` as Infinity, which JSON writes `null`: `PUT /__mock/wallet {"balance":1e400}` answered
// 200 {"balance":null}, `GET /api/v1/billing` then answered `balance: null`, and under `--state`
// the next start refused the whole file. Here the control surface and the operations are fed
// hostile numbers as text, every answer is held to its contract, and the mock is started again on
// the same `--state` file and on the same Redis (a real redis-server): the state loads and answers
// within the contract.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractValidator } from '../src/contract/contract-validator.js';
import { redisForTests } from './helpers/cluster.js';
import { generatedFiles } from './helpers/contract.js';
import { client, newKey, startStatefulMock } from './helpers/stateful-mock.js';
import type { MockOptions } from '../src/mock/start-mock.js';

const openapi = JSON.parse(readFileSync(generatedFiles.openapiJson, 'utf8'));
const control = JSON.parse(readFileSync(path.join(path.dirname(generatedFiles.openapiJson), 'mock-control.json'), 'utf8'));
const service = contractValidator(openapi);
const controlContract = contractValidator(control);

/** Numbers as only text can carry them: each is outside what a wallet can keep. */
const HOSTILE = ['1e400', '-1e400', '1e309', `1${'0'.repeat(309)}`, '"1e400"', '"NaN"', 'NaN', 'Infinity', '123456789012345678901234567890', '-123456789012345678901234567890', '1e400e1', '0x10'];

interface Exchange {
  label: string;
  operationId: string;
  status: number;
  body: unknown;
}

function judged(exchanges: Exchange[], validatorOf: (operationId: string) => ReturnType<typeof contractValidator>): string[] {
  const outside: string[] = [];
  for (const { label, operationId, status, body } of exchanges) {
    const verdicts = validatorOf(operationId).response(operationId, { status, headers: { 'content-type': 'application/json' }, body });
    if (verdicts.length > 0) outside.push(`${label}: ${status} ${JSON.stringify(body).slice(0, 120)} (${verdicts.map((v) => `${v.instancePath} ${v.keyword}`).join('; ')})`);
  }
  return outside;
}

const isControl = (operationId: string) => operationId.startsWith('mock');

async function feedHostileNumbers(url: string, key: string): Promise<{ exchanges: Exchange[]; statuses: Record<string, number[]> }> {
  const call = client(url, key);
  const exchanges: Exchange[] = [];
  const statuses: Record<string, number[]> = {};
  const send = async (operationId: string, method: string, pathname: string, text?: string) => {
    const answer = await call(method, pathname, text);
    exchanges.push({ label: `${method} ${pathname} ${text ?? ''}`, operationId, status: answer.status, body: answer.body });
    (statuses[operationId] ??= []).push(answer.status);
    return answer;
  };
  for (const n of HOSTILE) {
    await send('mockSetWallet', 'PUT', '/__mock/wallet', `{"balance":${n}}`);
    await send('mockCompleteCheckout', 'POST', '/__mock/checkout/complete', `{"amount":${n}}`);
    await send('mockAdvanceClock', 'POST', '/__mock/clock/advance', `{"seconds":${n}}`);
    await send('updateAccount', 'PATCH', '/api/v1/account', `{"maxCallDurationSeconds":${n}}`);
    await send('previewSubscriptionChange', 'POST', '/api/v1/billing/subscription/preview', `{"quantity":${n}}`);
    await send('waitForEvent', 'POST', '/api/v1/events/wait', `{"timeout":${n}}`);
    await send('listBillingActivity', 'GET', `/api/v1/billing/activity?limit=${encodeURIComponent(n)}`);
  }
  // Negative zero is a number JSON writes as 0: kept, and answered as 0.
  await send('mockSetWallet', 'PUT', '/__mock/wallet', '{"balance":-0}');
  // The last balance accepted: the top of the documented range.
  await send('mockSetWallet', 'PUT', '/__mock/wallet', '{"balance":1000000000}');
  await send('getBilling', 'GET', '/api/v1/billing');
  return { exchanges, statuses };
}

async function expectWithinContract(options: MockOptions, key: string): Promise<void> {
  let mock = await startStatefulMock(options);
  try {
    const { exchanges, statuses } = await feedHostileNumbers(mock.url, key);
    expect(judged(exchanges, (id) => (isControl(id) ? controlContract : service))).toEqual([]);
    // Every hostile wallet, top-up and clock move was refused with the documented 400.
    expect(statuses.mockSetWallet!.slice(0, HOSTILE.length)).toEqual(HOSTILE.map(() => 400));
    expect(statuses.mockCompleteCheckout).toEqual(HOSTILE.map(() => 400));
    expect(statuses.mockAdvanceClock).toEqual(HOSTILE.map(() => 400));
    expect(statuses.updateAccount).toEqual(HOSTILE.map(() => 400));
    expect(exchanges.at(-3)!.body).toEqual({ balance: 0 });
    expect(Object.is((exchanges.at(-3)!.body as { balance: number }).balance, -0)).toBe(false);
    expect((exchanges.at(-1)!.body as { balance: unknown }).balance).toBe(1_000_000_000);
  } finally {
    await mock.close();
  }
  // The same store again: it loads, and what it answers is the contract's.
  mock = await startStatefulMock(options);
  try {
    const billing = await client(mock.url, key)('GET', '/api/v1/billing');
    expect(judged([{ label: 'billing after restart', operationId: 'getBilling', status: billing.status, body: billing.body }], () => service)).toEqual([]);
    expect(billing.body.balance).toBe(1_000_000_000);
  } finally {
    await mock.close();
  }
}

describe('hostile numbers on the control surface and the operations', () => {
  const redis = redisForTests();

  it('on --state: every answer within the contract, and the file loads again', async () => {
    const statePath = path.join(mkdtempSync(path.join(tmpdir(), 'mock-hostile-')), 'state.json');
    await expectWithinContract({ statePath, warn: () => undefined }, newKey('hostile_file'));
  });

  it('on Redis: every answer within the contract, and a new process loads the account', async () => {
    await expectWithinContract({ storeUrl: redis().url, warn: () => undefined }, newKey('hostile_redis'));
  });

  it('the clock stops at the last four-digit year, with the documented 400', async () => {
    const mock = await startStatefulMock();
    try {
      const call = client(mock.url, null);
      // Within a year of the end (moved in-process: thousands of one-year moves prove nothing more).
      mock.simulator.advance(Date.UTC(9999, 0, 1) - mock.simulator.clock.now());
      expect((await call('POST', '/__mock/clock/advance', { seconds: 86_400 })).status).toBe(200);
      // A year more would pass 9999-12-31: refused, saying how far it may go.
      const answer = await call('POST', '/__mock/clock/advance', { seconds: 31_622_400 });
      expect(answer.status).toBe(400);
      expect(judged([{ label: 'past 9999', operationId: 'mockAdvanceClock', status: answer.status, body: answer.body }], () => controlContract)).toEqual([]);
      expect(JSON.stringify(answer.body)).toMatch(/past 9999-12-31T23:59:59\.999Z/);
      const now = await call('GET', '/__mock/clock');
      expect(now.body.now).toMatch(/^9999-/);
      expect(judged([{ label: 'clock', operationId: 'mockGetClock', status: now.status, body: now.body }], () => controlContract)).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});
