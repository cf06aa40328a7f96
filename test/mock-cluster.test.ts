// A mock a team hosts (issue 32): one Redis (redis-server from Debian, append-only file on), three
// `numbers-api mock --store` processes and nginx round-robin in front, all started for real. What
// one process does, the others show; an Idempotency-Key replays across them, and a duplicate gets
// the 409 while the original runs on another (held half-way to the store by a proxy); a long poll is
// answered by an event any of them committed; each simulated step runs once; the clock and the
// control surface are the whole cluster's; accounts stay apart; Redocly Respect's workflows pass
// through the load balancer; a replica killed with SIGKILL in the middle of a burst loses no
// acknowledged write and leaves no half-applied change; a replica started later serves the
// accounts already there.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startNginx, startRedis, startReplica, startStoreProxy, type RedisServer, type Server, type StoreProxy } from './helpers/cluster.js';
import type { CliProcess } from './helpers/mock-process.js';
import { failedSteps, respectLine, runRespectCommand, workflowResults } from './helpers/respect.js';
import { client, newKey } from './helpers/stateful-mock.js';

const SEND = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'cluster' };
const CALL = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Confirm the delivery window.' };
const CONTROL = { 'Content-Type': 'application/json' };

let redis: RedisServer;
let proxy: StoreProxy;
let replicas: Array<CliProcess & { port: number; url: string }>;
let lb: Server & { url: string };
const late: Array<CliProcess> = [];
/** The one-key snapshot as a file a team would commit (the later replica loads it with --snapshot). */
let snapshotFile: { snapshot: string; state: unknown } | undefined;
/** The key whose account `snapshotFile` is (a snapshot of one account is listed to its key). */
let snapshotOwner: string | null = null;

beforeAll(async () => {
  redis = await startRedis();
  // The first replica reaches the store through a proxy that can hold a request half-way.
  proxy = await startStoreProxy(redis.port);
  replicas = await Promise.all([proxy.url, redis.url, redis.url].map((url) => startReplica(url)));
  lb = await startNginx(replicas.map((replica) => replica.port));
}, 120_000);

afterAll(async () => {
  await lb?.stop();
  for (const replica of [...(replicas ?? []), ...late]) {
    replica.child.kill('SIGTERM');
    await replica.exited;
  }
  await proxy?.close();
  await redis?.stop();
});

/** The account `key` opens as a snapshot file holds it (saved and read through `url`). */
async function accountOf(url: string, key: string) {
  const name = `probe-${Math.random().toString(36).slice(2, 10)}`;
  expect((await client(url, key)('POST', `/__mock/snapshots/${name}`, {})).status).toBe(201);
  // A snapshot of one account is that account's: read and deleted with its key.
  const file = (await client(url, key)('GET', `/__mock/snapshots/${name}`)).body;
  await client(url, key)('DELETE', `/__mock/snapshots/${name}`, undefined, CONTROL);
  return Object.values(file.state.accounts)[0] as {
    messages: Array<{ id: string }>;
    events: Array<{ event: { type: string; data: { messageId?: string; status?: unknown }; relatedObject?: { id: string } } }>;
    daily: Record<string, { messages: number }>;
    meta: Record<string, { delivery?: string }>;
  };
}

describe('three replicas, one mock', () => {
  it('reads its writes on every replica; one clock; the control surface acts on all; accounts stay apart', async () => {
    const key = newKey('cluster');
    const [one, two, three] = replicas.map((replica) => client(replica.url, key));
    const sent = await one!('POST', '/api/v1/messages', SEND);
    expect(sent.status).toBe(201);
    for (const other of [two!, three!]) expect((await other('GET', '/api/v1/messages')).body[0].id).toBe(sent.body.id);
    expect((await three!('PATCH', '/api/v1/account', { maxCallDurationSeconds: 900 })).status).toBe(200);
    expect((await one!('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(900);
    // The wallet set on one, a checkout opened on another and completed on a third.
    expect((await two!('PUT', '/__mock/wallet', { balance: 7 })).body).toEqual({ balance: 7 });
    expect((await three!('GET', '/api/v1/billing')).body.balance).toBe(7);
    const checkout = await one!('POST', '/api/v1/billing/checkout/credits', {});
    expect(checkout.status).toBe(200);
    expect((await two!('POST', '/__mock/checkout/complete', { clientSecret: checkout.body.clientSecret, amount: 20 })).status).toBe(200);
    expect((await three!('GET', '/api/v1/billing')).body.balance).toBe(27);
    // The checkout is spent everywhere: completing it again on another replica finds none open.
    expect((await three!('POST', '/__mock/checkout/complete', { clientSecret: checkout.body.clientSecret, amount: 20 })).status).toBe(404);

    const before = (await client(replicas[0]!.url, null)('GET', '/__mock/clock')).body.offsetSeconds;
    expect((await client(replicas[1]!.url, null)('POST', '/__mock/clock/advance', { seconds: 120 })).status).toBe(200);
    for (const replica of replicas) expect((await client(replica.url, null)('GET', '/__mock/clock')).body.offsetSeconds).toBe(before + 120);

    // Another key, on any replica, sees none of it; its own changes stay its own.
    const strangerKey = newKey('stranger');
    for (const replica of replicas) {
      const stranger = client(replica.url, strangerKey);
      expect((await stranger('GET', '/api/v1/messages')).body.map((m: { id: string }) => m.id)).not.toContain(sent.body.id);
      expect((await stranger('GET', '/api/v1/account')).body.maxCallDurationSeconds).not.toBe(900);
      expect((await stranger('GET', '/api/v1/billing')).body.balance).not.toBe(27);
    }
    const mine = await accountOf(replicas[1]!.url, key);
    const theirs = await accountOf(replicas[2]!.url, strangerKey);
    expect(mine.messages.map((m) => m.id)).toContain(sent.body.id);
    expect(theirs.messages.map((m) => m.id)).not.toContain(sent.body.id);
  });

  it('an Idempotency-Key used on one replica replays on the others; another key may reuse it', async () => {
    const key = newKey('idem_seq');
    const [one, two, three] = replicas.map((replica) => client(replica.url, key));
    const original = await one!('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': 'seq-1' });
    expect(original.status).toBe(201);
    for (const other of [two!, three!]) {
      const replay = await other('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': 'seq-1' });
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(original.body.id);
    }
    expect((await three!('GET', '/api/v1/calls')).body.filter((c: { id: string }) => c.id === original.body.id)).toHaveLength(1);
    // Keys are the account's own (part 7.2): the same Idempotency-Key under another key is a new call.
    const elsewhere = await client(replicas[1]!.url, newKey('idem_other'))('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': 'seq-1' });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(original.body.id);
  });

  it("replays an Idempotency-Key across replicas: one call placed, every duplicate answers it", async () => {
    const key = newKey('idem');
    const call = client(lb.url, key);
    const seeded = ((await call('GET', '/api/v1/calls')).body as unknown[]).length;
    const answers = await Promise.all(Array.from({ length: 9 }, () => call('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': 'same-key-1' })));
    const placed = answers.filter((answer) => answer.status === 201);
    expect(placed).toHaveLength(1);
    // Each duplicate waited for the original and replays it, or (an original slower than the
    // wait window, on a loaded machine) got the documented 409: never a second call.
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect([200, 409]).toContain(answer.status);
      if (answer.status === 200) expect(answer.body.id).toBe(placed[0]!.body.id);
    }
    const again = await call('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': 'same-key-1' });
    expect([again.status, again.body.id]).toEqual([200, placed[0]!.body.id]);
    const listed = (await client(replicas[0]!.url, key)('GET', '/api/v1/calls')).body as Array<{ id: string }>;
    expect(listed.filter((c) => c.id === placed[0]!.body.id)).toHaveLength(1);
    expect(listed).toHaveLength(seeded + 1);
  });

  it('answers 409 while the original of an Idempotency-Key is still running on another replica', async () => {
    const key = newKey('running');
    const [one, two] = [client(replicas[0]!.url, key), client(replicas[1]!.url, key)];
    const seeded = ((await two('GET', '/api/v1/calls')).body as unknown[]).length;
    const same = { 'Idempotency-Key': 'still-running' };
    // The original, on the replica behind the proxy: its lease taken in the store, then what it
    // sends next held on the way, so it is still running while the duplicate arrives elsewhere.
    const holding = proxy.holdAfter(`:idem:${key}:still-running`);
    const original = one('POST', '/api/v1/calls', CALL, same);
    await holding;
    const store = new Redis(redis.url);
    try {
      while ((await store.keys(`*:idem:${key}:still-running`)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const duplicate = await two('POST', '/api/v1/calls', CALL, same);
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toEqual({ error: 'A request with this Idempotency-Key is still being processed. Retry with the same key.' });
    } finally {
      proxy.release();
      store.disconnect();
    }
    // The original ends: placed (201), or, held past its wait for the store on a loaded machine,
    // refused with nothing changed (503). Either way the key then makes exactly one call.
    const first = await original;
    expect([201, 503]).toContain(first.status);
    const again = await two('POST', '/api/v1/calls', CALL, same);
    if (first.status === 201) expect([again.status, again.body.id]).toEqual([200, first.body.id]);
    else expect(again.status).toBe(201);
    expect((await two('GET', '/api/v1/calls')).body).toHaveLength(seeded + 1);
  }, 30_000);

  it('a long poll held by one replica is answered by an event committed on another', async () => {
    const key = newKey('poll');
    // The seed's call runs its course first (the clock moved on), so the only call that moves
    // after this is the one placed below.
    const seededCalls = client(replicas[0]!.url, key);
    expect((await seededCalls('GET', '/api/v1/calls')).status).toBe(200);
    expect((await client(replicas[2]!.url, null)('POST', '/__mock/clock/advance', { seconds: 86_400 })).status).toBe(200);
    for (const call of (await seededCalls('GET', '/api/v1/calls')).body as Array<{ id: string; status: { state: string } }>) expect(call.status.state, call.id).toBe('Terminated');
    // The key's first wait sets where its waits resume (part 6: presence-based).
    expect((await client(replicas[0]!.url, key)('POST', '/api/v1/events/wait', { timeout: 1 })).status).toBe(408);
    const waiting = client(replicas[0]!.url, key)('POST', '/api/v1/events/wait', { timeout: 30, filters: { type: 'call.status_changed' } });
    const placed = await client(replicas[1]!.url, key)('POST', '/api/v1/calls', CALL);
    expect(placed.status).toBe(201);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.relatedObject.id).toBe(placed.body.id);
    // Another account never sees it (its own seeded call's events, or a timeout).
    const other = client(replicas[2]!.url, newKey('poll_other'));
    for (let i = 0; i < 3; i++) {
      const seen = await other('POST', '/api/v1/events/wait', { timeout: 1 });
      expect([200, 408]).toContain(seen.status);
      if (seen.status === 200) expect(seen.body.relatedObject?.id).not.toBe(placed.body.id);
    }
  }, 40_000);

  it('runs each simulated step once, whichever replica claims it: deliveries and call progress', async () => {
    const key = newKey('steps');
    const send = client(lb.url, key);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await send('POST', '/api/v1/messages', SEND)).body.id);
    const calls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const placed = await send('POST', '/api/v1/calls', CALL);
      expect(placed.status).toBe(201);
      calls.push(placed.body.id);
    }
    // Every delivery step falls due; the replicas' runners and this clock move race for them.
    expect((await client(replicas[2]!.url, null)('POST', '/__mock/clock/advance', { seconds: 3600 })).status).toBe(200);
    const account = await accountOf(replicas[0]!.url, key);
    const changes = account.events.filter(({ event }) => event.type === 'message.status_changed' && ids.includes(event.data.messageId!));
    const seen = changes.map(({ event }) => `${event.data.messageId} ${JSON.stringify(event.data.status)}`);
    expect(seen.length).toBeGreaterThanOrEqual(ids.length);
    expect(new Set(seen).size).toBe(seen.length); // no step ran twice
    for (const id of ids) expect(account.meta[id]!.delivery, id).not.toBe('sent');
    // Each call moved through its states once each, to an end (part 6: no state reported twice).
    const moves = account.events
      .filter(({ event }) => event.type === 'call.status_changed' && calls.includes(event.relatedObject?.id ?? ''))
      .map(({ event }) => `${event.relatedObject!.id} ${JSON.stringify(event.data.status)}`);
    expect(moves.length).toBeGreaterThan(calls.length);
    expect(new Set(moves).size).toBe(moves.length);
    const listed = (await client(replicas[1]!.url, key)('GET', '/api/v1/calls')).body as Array<{ id: string; status: { state: string } }>;
    for (const id of calls) expect(listed.find((c) => c.id === id)!.status.state, id).toBe('Terminated');
  });

  it('a reset and a whole snapshot brought back act on every replica', async () => {
    const key = newKey('snapall');
    const [one, two, three] = replicas.map((replica) => client(replica.url, key));
    expect((await one!('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1500 })).status).toBe(200);
    expect((await client(replicas[0]!.url, null)('POST', '/__mock/snapshots/cluster-all', {})).status).toBe(201);
    expect((await client(replicas[1]!.url, null)('POST', '/__mock/reset', {})).status).toBe(200);
    expect((await three!('GET', '/api/v1/account')).body.maxCallDurationSeconds).not.toBe(1500);
    expect((await client(replicas[2]!.url, null)('POST', '/__mock/snapshots/cluster-all/restore', {})).status).toBe(200);
    for (const call of [one!, two!, three!]) expect((await call('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(1500);
  });

  it("one key's snapshot, saved on one replica and brought back on another, restores that account only", async () => {
    const [a, b] = [newKey('snapone_a'), newKey('snapone_b')];
    expect((await client(replicas[0]!.url, a)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 600 })).status).toBe(200);
    const saved = await client(replicas[0]!.url, a)('POST', '/__mock/snapshots/cluster-one', {});
    expect(saved.body).toMatchObject({ name: 'cluster-one', scope: 'account', accounts: 1 });
    expect((await client(replicas[1]!.url, a)('GET', '/__mock/snapshots')).body.snapshots.map((s: { name: string }) => s.name)).toContain('cluster-one');
    snapshotOwner = a;
    expect((await client(replicas[1]!.url, a)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1200 })).status).toBe(200);
    expect((await client(replicas[1]!.url, b)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1300 })).status).toBe(200);
    expect((await client(replicas[2]!.url, b)('POST', '/__mock/snapshots/cluster-one/restore', {})).status).toBe(403);
    expect((await client(replicas[2]!.url, a)('POST', '/__mock/snapshots/cluster-one/restore', {})).status).toBe(200);
    for (const replica of replicas) {
      expect((await client(replica.url, a)('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(600);
      expect((await client(replica.url, b)('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(1300);
    }
    snapshotFile = (await client(replicas[2]!.url, a)('GET', '/__mock/snapshots/cluster-one')).body;
    expect(JSON.stringify(snapshotFile)).not.toContain(a);
    expect(snapshotFile).toMatchObject({ snapshot: 'cluster-one', scope: 'account' });
  });

  it('Redocly Respect: every workflow passes through the load balancer', async () => {
    const run = await runRespectCommand(respectLine(lb.url, newKey('respect')), { json: true });
    expect(run.report, run.output.slice(-3000)).toBeDefined();
    const failed = workflowResults(run.report!).filter((w) => w.status !== 'success').map((w) => `${w.workflowId}: ${failedSteps(w).join('; ')}`);
    expect(failed).toEqual([]);
    expect(run.code).toBe(0);
  }, 240_000);

  it('SIGKILL of a replica mid-burst loses no acknowledged write and leaves no half-applied change; a replica started later serves the accounts', async () => {
    const keys = [newKey('burst_a'), newKey('burst_b'), newKey('burst_c')];
    // The simulated day (the workflows move the clock by days).
    const today = String((await client(lb.url, null)('GET', '/__mock/clock')).body.now).slice(0, 10);
    const baseline = new Map<string, number>();
    for (const key of keys) baseline.set(key, (await accountOf(lb.url, key)).daily[today]?.messages ?? 0);
    const acknowledged = new Map<string, string[]>(keys.map((key) => [key, []]));
    let answered = 0;
    let refused = 0;
    const sender = async (n: number) => {
      for (let i = 0; i < 40; i++) {
        const key = keys[(n + i) % keys.length]!;
        try {
          const answer = await client(lb.url, key)('POST', '/api/v1/messages', SEND);
          if (answer.status === 201) acknowledged.get(key)!.push(answer.body.id);
          else refused++;
        } catch {
          refused++;
        }
        answered++;
      }
    };
    const senders = Array.from({ length: 6 }, (_, n) => sender(n));
    while (answered < 80) await new Promise((resolve) => setTimeout(resolve, 5));
    replicas[1]!.child.kill('SIGKILL');
    await Promise.all(senders);
    await replicas[1]!.exited;
    const total = [...acknowledged.values()].flat().length;
    expect(total).toBeGreaterThan(120);

    // A replica started now serves what is there; the snapshot file it is given is kept under
    // its name for all, not brought back over the state already in the store.
    expect(snapshotFile).toBeDefined();
    const committed = path.join(mkdtempSync(path.join(tmpdir(), 'cluster-snapshot-')), 'team.json');
    writeFileSync(committed, JSON.stringify({ ...snapshotFile, snapshot: 'team-committed' }));
    const later = await startReplica(redis.url, ['--snapshot', committed]);
    late.push(later);
    for (let i = 0; i < 400 && !/--snapshot team-committed: kept under its name; not brought back/.test(later.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(later.stderr()).toMatch(/--snapshot team-committed: kept under its name; not brought back/);
    expect((await client(replicas[0]!.url, snapshotOwner)('GET', '/__mock/snapshots')).body.snapshots.map((s: { name: string }) => s.name)).toContain('team-committed');
    let found = 0;
    for (const key of keys) {
      const account = await accountOf(later.url, key);
      const stored = new Set(account.messages.map((message) => message.id));
      const lost = acknowledged.get(key)!.filter((id) => !stored.has(id));
      expect(lost, `${key}: acknowledged but not in the store`).toEqual([]);
      found += acknowledged.get(key)!.length - lost.length;
      // One request's changes landed together: each message sent came with its day's count.
      const sentHere = account.messages.filter((message) => (message as { body?: string }).body === 'cluster').length;
      expect((account.daily[today]?.messages ?? 0) - baseline.get(key)!).toBe(sentHere);
    }
    console.log(`SIGKILL mid-burst (Redis store, 3 replicas behind nginx): ${total} acknowledged, ${found} found after the kill, ${refused} refused or cut off (never acknowledged)`);

    // The steps the killed replica had planned or claimed run on the others, once each.
    expect((await client(later.url, null)('POST', '/__mock/clock/advance', { seconds: 3600 })).status).toBe(200);
    for (const key of keys) {
      const account = await accountOf(later.url, key);
      for (const id of acknowledged.get(key)!) expect(account.meta[id]!.delivery, id).not.toBe('sent');
      const seen = account.events.filter(({ event }) => event.type === 'message.status_changed').map(({ event }) => `${event.data.messageId} ${JSON.stringify(event.data.status)}`);
      expect(new Set(seen).size).toBe(seen.length);
    }
  }, 120_000);
});
