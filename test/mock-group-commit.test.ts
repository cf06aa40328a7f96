// --state at the disk's pace (issue 39): one account's concurrent writes share a commit, none is
// answered before the fdatasync that holds it has returned, and no read shows a change before it
// is on disk. The real HTTP mock on loopback with a real journal; the disk is made slow through
// Node's own `fs.fdatasync` (the seam the file store calls), so what "before" means can be seen:
// the journal's text as each fdatasync began is what that fdatasync made durable.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
const realFdatasync = fs.fdatasync;
const journal = path.join(mkdtempSync(path.join(tmpdir(), 'group-commit-')), 'state.json');
const send = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'group commit' };

/** How long each fdatasync of the journal takes from now on (ms). */
let diskMs = 0;
/** Every fdatasync: when it began, and the journal's text then (what it makes durable) once it has returned. */
const syncs: Array<{ covered: string; done: boolean }> = [];
/** The journal's text each finished fdatasync made durable (a change is durable once one of them holds it). */
const durable = (id: string): boolean => syncs.some((sync) => sync.done && sync.covered.includes(id));

let mock: StatefulMock;
beforeAll(async () => {
  (fs as { fdatasync: typeof fs.fdatasync }).fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    let covered = '';
    try {
      covered = readFileSync(`${journal}.journal`, 'utf8');
    } catch {
      // not the journal's
    }
    const sync = { covered, done: false };
    syncs.push(sync);
    setTimeout(
      () =>
        realFdatasync(fd, (error) => {
          sync.done = true;
          callback(error);
        }),
      diskMs,
    );
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  mock = await startStatefulMock({ statePath: journal });
});
afterAll(async () => {
  await mock?.close();
  (fs as { fdatasync: typeof fs.fdatasync }).fdatasync = realFdatasync;
  syncBuiltinESMExports();
});

describe('--state: group commit', () => {
  it("one account's concurrent sends share an fdatasync, and each is answered only once one holding it has returned", async () => {
    // Long beside how far apart the 12 requests arrive, even on a busy machine.
    diskMs = 150;
    const call = client(mock.url, newKey('group'));
    const before = syncs.length;
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const answer = await call('POST', '/api/v1/messages', send);
        // As the answer arrives: its message is in a journal text an fdatasync has made durable.
        return { status: answer.status, id: answer.body?.id as string, durableOnArrival: durable(`"${answer.body?.id}"`) };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(answers.filter((a) => !a.durableOnArrival)).toEqual([]);
    // One fdatasync each would be 12; the requests that came while the disk worked share the next.
    const used = syncs.length - before;
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(4);
  });

  it('a read racing a pending write does not see it before it is on disk', async () => {
    diskMs = 300;
    const key = newKey('race');
    const call = client(mock.url, key);
    const seeded = (await call('GET', '/api/v1/messages')).body as unknown[];
    const before = syncs.length;
    const writing = call('POST', '/api/v1/messages', send);
    // The write's fdatasync has begun and not returned: the send is in memory, not yet on disk.
    while (syncs.length === before) await new Promise((resolve) => setTimeout(resolve, 2));
    const list = await call('GET', '/api/v1/messages');
    const ids: string[] = (list.body as Array<{ id: string }>).map((m: { id: string }) => m.id);
    const shownBeforeDurable = ids.filter((id) => !durable(`"${id}"`));
    expect(list.status).toBe(200);
    // The send is shown (the read waited for the disk), and only once durable.
    expect(ids).toHaveLength(seeded.length + 1);
    expect(shownBeforeDurable).toEqual([]);
    const sent = await writing;
    expect(sent.status).toBe(201);
    expect(durable(`"${sent.body.id}"`)).toBe(true);
  });
});
