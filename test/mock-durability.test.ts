// Nothing acknowledged is lost (issue 21): with `--state`, the mock answers a write only once the
// state holding it is on disk (group commit). The whole process group is killed with SIGKILL in the
// middle of a burst of concurrent sends; the state file, read as it is and through a restarted
// mock, holds every send the mock answered 201 to. The file holds full API keys, so it is mode 600.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStateFile } from '../src/store/state-file.js';
import { freePort, startCli, startCliGroup } from './helpers/mock-process.js';
import { client, newKey } from './helpers/stateful-mock.js';

const SEND = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'durable?' };

describe('--state: every acknowledged write survives kill -9 of the process group', () => {
  it('holds every send answered 201 before the kill, in the file and after a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-durable-'));
    const stateFile = path.join(dir, 'state.json');
    const keys = [newKey('durable_a'), newKey('durable_b'), newKey('durable_c')];
    const acknowledged = new Map<string, string[]>(keys.map((key) => [key, []]));
    const port = await freePort();
    const cli = startCliGroup(['mock', '--port', String(port), '--quiet', '--state', stateFile]);
    await cli.waitForOutput(/Mock ready on/);
    const base = `http://127.0.0.1:${port}`;
    let killed = false;
    let answered = 0;
    // Eight senders at once, round the keys, until the kill; each 201 is an acknowledged write.
    const sender = async (n: number) => {
      for (let i = 0; !killed && i < 80; i++) {
        const key = keys[(n + i) % keys.length]!;
        try {
          const answer = await client(base, key)('POST', '/api/v1/messages', SEND);
          if (answer.status === 201) acknowledged.get(key)!.push(answer.body.id);
          answered++;
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const senders = Array.from({ length: 8 }, (_, n) => sender(n));
    while (answered < 120) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    process.kill(-cli.child.pid!, 'SIGKILL');
    await Promise.all(senders);
    await cli.exited;

    const total = [...acknowledged.values()].flat().length;
    expect(total).toBeGreaterThanOrEqual(120);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(`${stateFile}.journal`).mode & 0o777).toBe(0o600);
    // The file and its journal, as they are on disk (read as the next start reads them).
    const state = readStateFile(stateFile)!;
    let found = 0;
    for (const key of keys) {
      const stored = new Set<string>(state.accounts[state.keys[key]!]!.messages.map((message) => message.id));
      const lost = acknowledged.get(key)!.filter((id) => !stored.has(id));
      expect(lost, `${key}: acknowledged but not in the state file`).toEqual([]);
      found += acknowledged.get(key)!.length - lost.length;
    }
    console.log(`SIGKILL mid-burst (file store, --state journal): ${total} acknowledged, ${found} found in the file and its journal`);

    // A restarted mock answers from it.
    const port2 = await freePort();
    const again = startCli(['mock', '--port', String(port2), '--quiet', '--state', stateFile]);
    try {
      await again.waitForOutput(/Mock ready on/);
      for (const key of keys) {
        const listed = await client(`http://127.0.0.1:${port2}`, key)('GET', '/api/v1/messages');
        const ids = new Set((listed.body as Array<{ id: string }>).map((message) => message.id));
        expect(acknowledged.get(key)!.filter((id) => !ids.has(id))).toEqual([]);
      }
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
  });
});
