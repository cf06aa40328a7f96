// The operations a resource module declares `reads` change no state (issue 21): answering one is
// not a change, so under `--state` it waits for no disk write. Each declared read, sent as
// documented and with the account's own ids and query variants, leaves the state byte for byte
// as it was. The check is shown to catch a write: number lookup, which counts each lookup
// against the hourly cap (part 8), is not a read, and the same comparison sees it change state.
import { describe, expect, it } from 'vitest';
import { RESOURCE_MODULES } from '../src/simulator/resources/index.js';
import type { OperationId } from '../src/simulator/records.js';
import { listOperations, type OperationEntry } from './helpers/contract.js';
import { documentedRequest } from './helpers/mock-server.js';
import { document, inProcessSimulator } from './helpers/simulator-harness.js';
import { newKey } from './helpers/stateful-mock.js';

const operations = new Map<string, OperationEntry>(listOperations(document).map((entry) => [String(entry.operation.operationId), entry]));
const declared = RESOURCE_MODULES.flatMap((module) => (module.reads ?? []).map((operationId) => [operationId, module.name] as const));

/** The requests a read is judged on: as documented, and with the account's own ids and filters. */
function requestsOf(operationId: string, ids: { number: string; invoice: string | undefined }): string[] {
  const entry = operations.get(operationId)!;
  const documented = documentedRequest(document, entry, null).url;
  const own = entry.path.replace('{id}', ids.number).replace('{invoiceId}', ids.invoice ?? 'inv_none');
  return [...new Set([documented, own, `${own}?days=7`, `${own}?limit=1`, `${own}?channel=sms`])];
}

/** The state as text after each request of `operationId`, beside the state before it. */
function statesAround(operationId: string): Array<{ path: string; before: string; after: string; status: number }> {
  const key = newKey('reads');
  const sim = inProcessSimulator({ key });
  const account = sim.account();
  const ids = { number: account.numbers[0]!.id, invoice: Object.keys(account.billing.invoices)[0] };
  const method = operations.get(operationId)!.method.toUpperCase();
  return requestsOf(operationId, ids).map((path) => {
    const before = JSON.stringify(sim.simulator.state);
    const answer = sim.send(method, path);
    return { path, before, after: JSON.stringify(sim.simulator.state), status: answer.status };
  });
}

describe('declared reads change no state', () => {
  it('covers every GET but number lookup', () => {
    const gets = [...operations.entries()].filter(([, entry]) => entry.method === 'get').map(([operationId]) => operationId);
    expect(declared.map(([operationId]) => operationId).sort()).toEqual(gets.filter((operationId) => operationId !== 'lookupNumber').sort());
  });

  it.each(declared)('%s (%s module)', (operationId) => {
    const states = statesAround(operationId);
    expect(states.some(({ status }) => status === 200), 'at least one request reaches the handler and succeeds').toBe(true);
    for (const { path, before, after } of states) expect(after, path).toBe(before);
  });

  it('a read is not reported as a change; a new account and a lookup are', () => {
    const key = newKey('reads');
    const sim = inProcessSimulator({ key });
    let changes = 0;
    sim.simulator.onChange(() => changes++);
    sim.call('GET', '/api/v1/account');
    expect(changes, 'the first request of a key opens its account').toBe(1);
    for (const path of ['/api/v1/account', '/api/v1/messages', '/api/v1/numbers', '/api/v1/usage?days=7']) sim.call('GET', path);
    expect(changes, 'reads').toBe(1);
    sim.call('GET', `/api/v1/lookup?number=${encodeURIComponent('+14155550123')}`);
    expect(changes, 'a lookup').toBe(2);
  });

  it('the comparison catches a write: a number lookup counts against the cap (part 8)', () => {
    const changed = statesAround('lookupNumber' satisfies OperationId).filter(({ before, after }) => before !== after);
    expect(changed.length).toBeGreaterThan(0);
  });
});
