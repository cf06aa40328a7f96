// The state is never lost by the mock itself (issue 27, items 2 and 5). With `--state`:
// - a full disk (a tmpfs of a few KB) or a read-only one: a change that cannot be written is
//   answered 503 in the `Error` shape naming the cause, said once in the log, and nothing is
//   retried in a loop; the change is kept and written once there is room again;
// - SIGTERM on a full disk never replaces the good file with a short one, so the next start reads it;
// - temporary files a killed run left are removed at start; a file with the right top level but
//   wrong records is refused with what is wrong (one line, exit 2), and left as it was;
// - a state too large for one string is written and read one account per line;
// - every answer shows what its own request did (50 parallel PATCHes, on both transports, with and
//   without --state), and a read never shows a change that is not on disk yet (README, "Mock").
import { watch, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '../src/msw/index.js';
import { readJournal, readStateFile, stateChunks, writeFileAtomic } from '../src/store/state-file.js';
import { emptyState, type SimState } from '../src/simulator/state.js';
import { freePort, startCli } from './helpers/mock-process.js';
import { canMount, CANNOT_MOUNT, smallDisk, type SmallDisk } from './helpers/small-disk.js';
import { client, MSW_BASE, newKey, startStatefulMock } from './helpers/stateful-mock.js';

const NUMBER = '/api/v1/numbers/pn_8f3kq2m9x7';
const patch = (seconds: number) => ({ maxCallDurationSeconds: seconds });

if (!canMount) console.warn(CANNOT_MOUNT);

/** Whether this process (the in-process mock) holds `file` open. */
function openByThisProcess(file: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });
}

/** PATCHes the number with `from`, `from + 1` ... until one is refused; the refusal and the last value answered 200. */
async function writeUntilRefused(call: ReturnType<typeof client>, from: number) {
  let acknowledged = 600;
  for (let value = from; value < from + 200; value++) {
    const answer = await call('PATCH', NUMBER, patch(value));
    if (answer.status !== 200) return { refused: answer, acknowledged };
    acknowledged = value;
  }
  throw new Error('no write was refused on a full disk');
}

/** The cap of the demo number of the account whose key contains `name`, in a state read back. */
function numberCap(state: SimState, name: string): number | null | undefined {
  const account = state.accounts[state.keys[Object.keys(state.keys).find((key) => key.includes(name))!]!]!;
  return account.numbers.find((n) => n.id === 'pn_8f3kq2m9x7')!.maxCallDurationSeconds;
}

/**
 * A mock whose --state file is on a small tmpfs, one number's cap already written there (`good`: the
 * file then); `body` runs against it, and the mock is closed after.
 */
async function onSmallDisk(
  name: string,
  body: (on: { disk: SmallDisk; stateFile: string; warnings: string[]; call: ReturnType<typeof client>; good: string }) => Promise<void>,
): Promise<void> {
  const disk = smallDisk(64);
  const stateFile = path.join(disk.dir, 'state.json');
  const warnings: string[] = [];
  const mock = await startStatefulMock({ statePath: stateFile, warn: (line) => warnings.push(line) });
  try {
    const call = client(mock.url, newKey(name));
    expect((await call('PATCH', NUMBER, patch(600))).status).toBe(200);
    await body({ disk, stateFile, warnings, call, good: readFileSync(stateFile, 'utf8') });
  } finally {
    await mock.close();
  }
}

describe.skipIf(!canMount)('--state on a disk that is full or read-only (tmpfs)', () => {
  it('a full disk: 503 in the Error shape naming the cause, one log line, no loop; the change is written once there is room', async () => {
    await onSmallDisk('fulldisk', async ({ disk, stateFile, warnings, call, good }) => {
      disk.fill();

      // An append may still fit in the journal's last page: writes are acknowledged until one does not.
      const { refused, acknowledged } = await writeUntilRefused(call, 700);
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: expect.stringMatching(/could not save its state .*the disk is full \(ENOSPC\)/) });
      // A second change in the same state is told the same, and the log says it once.
      expect((await call('PATCH', NUMBER, patch(901))).status).toBe(503);
      expect(warnings.filter((line) => /cannot write .*ENOSPC/.test(line))).toHaveLength(1);
      expect(readFileSync(stateFile, 'utf8')).toBe(good);
      // The journal never keeps half a change (a failed append is cut back to the last whole line),
      // and it holds every change answered 200.
      expect(readJournal(`${stateFile}.journal`)!.tornBytes).toBe(0);
      expect(numberCap(readStateFile(stateFile)!, 'fulldisk')).toBe(acknowledged);

      // Nothing spins: in a second with no request, a handful of retries at most (a loop makes thousands).
      let attempts = 0;
      const watcher = watch(disk.dir, () => attempts++);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      watcher.close();
      expect(attempts).toBeLessThan(20);

      disk.free();
      const after = await call('PATCH', NUMBER, patch(1200));
      expect(after.status).toBe(200);
      expect(numberCap(readStateFile(stateFile)!, 'fulldisk')).toBe(1200);
      expect(warnings.some((line) => /written again/.test(line))).toBe(true);
    });
  });

  it('a read-only directory: 503 naming it, and the file left as it was', async () => {
    await onSmallDisk('readonly', async ({ disk, stateFile, warnings, call, good }) => {
      // A file system with a file open for writing cannot be remounted read-only: the mock closes
      // its journal once it has been idle a moment.
      while (openByThisProcess(`${stateFile}.journal`)) await new Promise((resolve) => setTimeout(resolve, 20));
      disk.readOnly(true);
      const refused = await call('PATCH', NUMBER, patch(700));
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatch(/the file system is read-only \(EROFS\)/);
      expect(warnings.filter((line) => /EROFS/.test(line))).toHaveLength(1);
      expect(readFileSync(stateFile, 'utf8')).toBe(good);
      disk.readOnly(false);
      expect((await call('PATCH', NUMBER, patch(800))).status).toBe(200);
    });
  });

  it('SIGTERM on a full disk keeps the last good file (never a short one), and the next start reads it', async () => {
    const disk = smallDisk(64);
    const stateFile = path.join(disk.dir, 'state.json');
    const port = await freePort();
    const key = newKey('sigterm');
    const cli = startCli(['mock', '--port', String(port), '--quiet', '--state', stateFile]);
    await cli.waitForOutput(/Mock ready on/);
    const call = client(`http://127.0.0.1:${port}`, key);
    expect((await call('PATCH', NUMBER, patch(600))).status).toBe(200);
    const good = readFileSync(stateFile, 'utf8');
    disk.fill();
    const { refused, acknowledged } = await writeUntilRefused(call, 700);
    expect(refused.status).toBe(503);
    cli.child.kill('SIGTERM');
    await cli.exited;
    expect(cli.stderr()).toMatch(/cannot write .*ENOSPC/);
    expect(readFileSync(stateFile, 'utf8')).toBe(good);
    expect(readJournal(`${stateFile}.journal`)!.tornBytes).toBe(0);
    disk.free();

    const again = startCli(['mock', '--port', String(await freePort()), '--quiet', '--state', stateFile]);
    try {
      const [, url] = (await again.waitForOutput(/Mock ready on (\S+)/))!;
      const number = await client(url!, key)('GET', '/api/v1/numbers');
      expect(number.body.find((n: { id: string }) => n.id === 'pn_8f3kq2m9x7').maxCallDurationSeconds).toBe(acknowledged);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
  });
  it('a start on a full disk keeps the journal it could not fold: the changes in it survive the next write and the next start', async () => {
    const disk = smallDisk(64);
    const stateFile = path.join(disk.dir, 'state.json');
    const [first, second] = [newKey('journal_first'), newKey('journal_second')];
    const run = async (body: (url: string) => Promise<void>) => {
      const cli = startCli(['mock', '--port', String(await freePort()), '--quiet', '--state', stateFile]);
      try {
        const [, url] = (await cli.waitForOutput(/Mock ready on (\S+)/))!;
        await body(url!);
      } finally {
        cli.child.kill('SIGKILL');
        await cli.exited;
      }
    };
    // Acknowledged, so in the journal; killed before any start folds it into the file.
    await run(async (url) => expect((await client(url, first)('PATCH', NUMBER, patch(600))).status).toBe(200));
    // This start cannot write the file it folds the journal into; room comes back; another change.
    disk.fill();
    await run(async (url) => {
      disk.free();
      expect((await client(url, second)('PATCH', NUMBER, patch(700))).status).toBe(200);
    });
    await run(async (url) => {
      const cap = async (key: string) => (await client(url, key)('GET', '/api/v1/numbers')).body.find((n: { id: string }) => n.id === 'pn_8f3kq2m9x7').maxCallDurationSeconds;
      expect(await cap(first)).toBe(600);
      expect(await cap(second)).toBe(700);
    });
  });
});

describe('--state file checks at start', () => {
  it('removes the temporary files of a killed run, and keeps those of a running process', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-stale-'));
    const stateFile = path.join(dir, 'state.json');
    const dead = path.join(dir, '.state.json.2147483646.tmp');
    const running = path.join(dir, '.state.json.1.tmp');
    writeFileSync(dead, '{"version":1,"accounts":{"sk_live_full_key_in_a_leftover":');
    writeFileSync(running, '{}');
    const warnings: string[] = [];
    const mock = await startStatefulMock({ statePath: stateFile, warn: (line) => warnings.push(line) });
    await mock.close();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(warnings).toContain('--state: removed .state.json.2147483646.tmp, left by a run that was killed while writing.');
  });

  it('refuses a file with the right top level but wrong records, says what is wrong, and leaves it untouched', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-badstate-'));
    const stateFile = path.join(dir, 'state.json');
    const state = emptyState() as unknown as Record<string, unknown>;
    state.accounts = { acct_1: { id: 'acct_1', messages: 'not a list' } };
    state.keys = { sk_live_somebody: 'acct_1' };
    const text = JSON.stringify(state);
    writeFileSync(stateFile, text);
    const cli = startCli(['mock', '--port', String(await freePort()), '--quiet', '--state', stateFile]);
    const { code } = await cli.exited;
    // One line through the command kit, exit 2 (issue 39: exit 1, the problems on lines of their own).
    expect(code).toBe(2);
    const [line, more, end] = cli.stderr().split('\n');
    expect(line).toMatch(/^numbers-api mock: --state: .* is not a valid state of this mock \(.*\/accounts\/acct_1.*\); it is left untouched: move it away or choose another --state\.$/);
    expect([more, end]).toEqual(['Run numbers-api mock --help for the options.', '']);
    expect(readFileSync(stateFile, 'utf8')).toBe(text);
  });

  it('a state too large for one string is written one account per line and read back the same way', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-lines-'));
    const stateFile = path.join(dir, 'state.json');
    const state = emptyState();
    state.eventSeq = 7;
    for (const id of ['acct_a', 'acct_b']) state.accounts[id] = { id, note: `line of ${id}` } as never;
    writeFileAtomic(stateFile, stateChunks(state));
    const text = readFileSync(stateFile, 'utf8');
    expect(text.split('\n')).toHaveLength(5);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(state)));
    const read = readStateFile(stateFile, () => [], 0);
    expect(JSON.parse(JSON.stringify(read))).toEqual(JSON.parse(JSON.stringify(state)));
  });
});

describe('each answer shows what its own request did', () => {
  async function fifty(base: string): Promise<number> {
    const call = client(base, newKey('parallel'));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call('PATCH', NUMBER, patch(600 + i)).then((answer) => ({ i, answer }))));
    return answers.filter(({ i, answer }) => answer.status !== 200 || answer.body.maxCallDurationSeconds !== 600 + i).length;
  }

  it('over HTTP with --state, and without', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'mock-own-')), 'state.json');
    for (const options of [{ statePath: stateFile }, {}]) {
      const mock = await startStatefulMock(options);
      try {
        expect(await fifty(mock.url), JSON.stringify(options)).toBe(0);
      } finally {
        await mock.close();
      }
    }
  });

  it('in-process (MSW)', async () => {
    const handlers = createHandlers({ validateResponses: 'strict' });
    const server = setupServer(...handlers.handlers);
    server.listen({ onUnhandledRequest: 'error' });
    try {
      expect(await fifty(MSW_BASE)).toBe(0);
    } finally {
      server.close();
      handlers.control.stop();
    }
  });

  it('under --state a read never shows a change that is not on disk yet', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'mock-readdurable-')), 'state.json');
    const mock = await startStatefulMock({ statePath: stateFile });
    try {
      const key = newKey('readdurable');
      const call = client(mock.url, key);
      await call('GET', '/api/v1/account');
      for (let round = 0; round < 5; round++) {
        const seconds = 700 + round;
        const write = call('PATCH', NUMBER, patch(seconds));
        // Sent once the change is made in memory, while it waits for its flush: what the read
        // shows must already be on disk when it is answered.
        const inMemory = () => mock.simulator!.accountForKey(key)!.numbers.find((n) => n.id === 'pn_8f3kq2m9x7')!.maxCallDurationSeconds;
        while (inMemory() !== seconds) await new Promise((resolve) => setImmediate(resolve));
        const read = await call('GET', '/api/v1/numbers');
        const shown = read.body.find((n: { id: string }) => n.id === 'pn_8f3kq2m9x7').maxCallDurationSeconds;
        expect(shown).toBe(seconds);
        const stored = readStateFile(stateFile)!;
        const onDisk = stored.accounts[stored.keys[key]!]!.numbers.find((n) => n.id === 'pn_8f3kq2m9x7')!.maxCallDurationSeconds;
        expect(onDisk, `round ${round}`).toBe(shown);
        await write;
      }
    } finally {
      await mock.close();
    }
  });
});
