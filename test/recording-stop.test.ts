// `--record <dir>` stopped by a signal loses nothing it recorded: the files are written off the
// event loop while the mock runs (src/recording/recording-files.ts), and a SIGTERM or SIGINT that
// comes while requests are still being recorded (and a batch of writes may be under way) ends the
// process only once every recording is on disk, each with every request its key sent.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from './helpers/contract.js';
import { freePort, startCli } from './helpers/mock-process.js';
import { newKey } from './helpers/stateful-mock.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const KEYS = 5;
const SENDS_PER_KEY = 60;

describe.each(['SIGTERM', 'SIGINT'] as const)('--record stopped by %s', (signal) => {
  it('writes every request of every key before the process ends', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'recording-stop-'));
    dirs.push(dir);
    const port = await freePort();
    const cli = startCli(['mock', '--quiet', '--port', String(port), '--record', dir]);
    try {
      await cli.waitForOutput(/Mock ready on /);
      const keys = Array.from({ length: KEYS }, () => newKey('stop'));
      const send = async (key: string, i: number): Promise<number> => {
        const body = JSON.stringify({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: `send ${i}` });
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/messages`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body });
        await response.arrayBuffer();
        return response.status;
      };
      // Each key's requests one after another, the keys at once: the recordings change until the signal.
      const statuses = await Promise.all(keys.map(async (key) => {
        const got: number[] = [];
        for (let i = 0; i < SENDS_PER_KEY; i++) got.push(await send(key, i));
        return got;
      }));
      expect(statuses.flat().every((status) => status === 201), String(statuses.flat())).toBe(true);
      cli.child.kill(signal);
      expect((await cli.exited).code).toBe(0);
      const files = readdirSync(dir).filter((name) => name.endsWith('.arazzo.json'));
      expect(files).toHaveLength(KEYS);
      for (const name of files) {
        const workflow = (JSON.parse(readFileSync(path.join(dir, name), 'utf8')).workflows as JsonObject[])[0]!;
        expect((workflow.steps as JsonObject[]).map((step) => step.requestBody?.payload?.body)).toEqual(Array.from({ length: SENDS_PER_KEY }, (_, i) => `send ${i}`));
      }
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 60_000);
});
