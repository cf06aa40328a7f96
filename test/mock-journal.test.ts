// The file store's journal (issue 32): each run's changes as a line, folded into the state file
// when it outgrows it. What the journal and the file hold, read back as the next start reads
// them, is exactly the state in memory, after every kind of change the rules make: histories
// that roll over (appends and trims), records changed in place (a call's moves, a message's
// delivery), maps (meta, idempotency keys), sign-ups, an account deleted, the clock moved, a
// snapshot brought back, and compactions in the middle of it all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOpenApi, readGeneratedJson } from '../src/contract/generated-files.js';
import { readJournal, readStateFile } from '../src/store/state-file.js';
import { fileStore } from '../src/store/file-store.js';
import { createMockCore } from '../src/serve/mock-core.js';
import { manualClock } from '../src/simulator/clock.js';
import type { SimState } from '../src/simulator/state.js';
import { simRequest } from './helpers/simulator-harness.js';

/** The state as plain data, its queue of steps in the order they run (a heap's layout may differ). */
function normal(state: SimState): unknown {
  const copy = JSON.parse(JSON.stringify(state)) as SimState;
  copy.jobs.sort((a, b) => a.seq! - b.seq!);
  return copy;
}

describe('--state: the journal holds exactly what the mock holds', () => {
  it('after sends past the history limit, calls, sign-up, a deletion, the clock and a snapshot, through compactions', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'mock-journal-')), 'state.json');
    const core = createMockCore({
      document: loadOpenApi(),
      controlDocument: readGeneratedJson('mock-control.json'),
      // Folded into the file every few dozen changes, while requests go on.
      store: (simulator) => fileStore(simulator, file, { compactBytes: 200_000 }),
    });
    const serve = async (method: string, pathname: string, body?: unknown, key: string | null = 'sk_live_journal_a', headers: Record<string, string> = {}) => {
      const answer = await core.pipeline.serve(simRequest(method, pathname, { body, key, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } }));
      return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : undefined };
    };
    const send = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'journal' };
    try {
      // Past HISTORY_LIMIT (500, trimmed in batches): appends, then a trim of the oldest.
      for (let batch = 0; batch < 13; batch++) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => serve('POST', '/api/v1/messages', send)));
        expect(answers.every((answer) => answer.status === 201)).toBe(true);
      }
      const call = await serve('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'hi' }, 'sk_live_journal_a', { 'idempotency-key': 'k1' });
      expect(call.status).toBe(201);
      await serve('PATCH', '/api/v1/account', { maxCallDurationSeconds: 900 }, 'sk_live_journal_b');
      // Delivery and call progress: records changed in place, events appended, steps taken.
      await serve('POST', '/__mock/clock/advance', { seconds: 30 }, null);
      // Sign-up: the state's maps, an account made without a key.
      const signup = await serve('POST', '/api/v1/auth/signup', { email: 'journal@example.com' }, null);
      const verified = await serve('POST', '/api/v1/auth/verify', { verificationId: signup.body.verificationId, code: '123456' }, null);
      await serve('POST', '/api/v1/auth/register-number', { registrationId: verified.body.registrationId, phoneNumber: '+14155550177' }, null);
      const created = await serve('POST', '/api/v1/auth/verify-number', { registrationId: verified.body.registrationId, code: '123456' }, null);
      expect(created.status).toBe(200);
      // A snapshot of one key, changed, brought back; an account deleted.
      expect((await serve('POST', '/__mock/snapshots/before-b', {}, 'sk_live_journal_b')).status).toBe(201);
      await serve('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1200 }, 'sk_live_journal_b');
      expect((await serve('POST', '/__mock/snapshots/before-b/restore', {}, 'sk_live_journal_b')).status).toBe(200);
      expect((await serve('DELETE', '/api/v1/account', undefined, created.body.apiKey)).status).toBe(200);

      const inMemory = normal(core.simulator.state);
      const b = core.simulator.state.keys['sk_live_journal_b']!;
      // Stopped as the command stops: a compaction under way finishes, what is pending is flushed.
      core.stop();
      await core.store.close();
      const read = normal(readStateFile(file)!) as SimState;
      expect(read).toEqual(inMemory);
      expect(read.accounts[b]!.account.maxCallDurationSeconds).toBe(900);
      // Folded along the way: the journal no longer starts at the first change.
      expect(readJournal(`${file}.journal`)!.entries[0]!.n).toBeGreaterThan(1);
    } finally {
      core.stop();
      await core.store.close();
    }
  });

  it('a read runs what fell due as a change, written like any other; a read with nothing due writes nothing', async () => {
    // A read of an open account with nothing due runs on the state itself, untracked (simulator.ts
    // `within`): one that runs due steps must not, or the journal would lack what they did.
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'mock-journal-')), 'state.json');
    const clock = manualClock();
    const core = createMockCore({ document: loadOpenApi(), controlDocument: readGeneratedJson('mock-control.json'), clock, store: (simulator) => fileStore(simulator, file) });
    const key = 'sk_live_journal_due';
    const serve = (method: string, pathname: string, body?: unknown) =>
      core.pipeline.serve(simRequest(method, pathname, { body, key, headers: body !== undefined ? { 'content-type': 'application/json' } : {} }));
    const lines = (): number => readJournal(`${file}.journal`)?.entries.length ?? 0;
    try {
      for (let i = 0; i < 3; i++) expect((await serve('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'due' })).status).toBe(201);
      const quiet = lines();
      expect((await serve('GET', '/api/v1/messages')).status).toBe(200);
      expect(lines(), 'a read with nothing due').toBe(quiet);
      // The deliveries fall due; the next read runs them (the runner's timer has not woken yet).
      clock.set(clock.now() + 60_000);
      expect((await serve('GET', '/api/v1/messages')).status).toBe(200);
      expect(lines(), 'a read that ran the deliveries').toBeGreaterThan(quiet);
      const inMemory = normal(core.simulator.state);
      core.stop();
      await core.store.close();
      expect(normal(readStateFile(file)!)).toEqual(inMemory);
    } finally {
      core.stop();
      await core.store.close();
    }
  });
});
