// The control surface is not for pages or other keys (issue 27, item 6). `POST /__mock/reset` and
// `POST /__mock/clock/advance` needed nothing, also under --strict-keys and on 0.0.0.0; a page on
// another origin reset the mock with a CORS simple request, and a webhook subscription to
// /__mock/reset reset it on the next event. The matrix, origin × mode × token:
//
//   origin:  none (a program) · this machine's page (http://localhost:…) · another origin's page ·
//            a name rebound to this machine (Host: rebound.example) · a webhook delivery
//   mode:    loopback · --strict-keys · bound to 0.0.0.0
//   token:   none · wrong · right
//
// A change is answered only for JSON, from a program or this machine's page, on this machine's
// Host (unless the token is given), and with the token where the mode needs one. Reading stays open.
// Both preflight and request are checked; the page in Chromium is test/browser/mock-from-a-page.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_TOKEN_HEADER } from '../src/delivery/control-paths.js';
import { rawRequest } from './helpers/raw-http.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

type Origin = 'program' | 'this machine' | 'other origin' | 'rebound name' | 'webhook delivery';
type Token = 'none' | 'wrong' | 'right';
const ORIGINS: Origin[] = ['program', 'this machine', 'other origin', 'rebound name', 'webhook delivery'];
const TOKENS: Token[] = ['none', 'wrong', 'right'];

const modes = [
  { mode: 'loopback', options: { host: '127.0.0.1' }, needsToken: false },
  { mode: '--strict-keys', options: { host: '127.0.0.1', strictKeys: true }, needsToken: true },
  { mode: 'HOST=0.0.0.0', options: { host: '0.0.0.0' }, needsToken: true },
] as const;

/** What the matrix expects: a change goes through only from a program or this machine's page, with the token where needed. */
function allowed(origin: Origin, token: Token, needsToken: boolean): boolean {
  if (origin === 'other origin' || origin === 'webhook delivery') return false;
  if (needsToken) return token === 'right';
  // Without a required token, a rebound name is told apart by its Host.
  return origin !== 'rebound name';
}

const figures: string[] = [];
afterAll(() => console.log(`control surface, POST /__mock/clock/advance (origin × mode × token → status):\n${figures.join('\n')}`));

describe.each(modes)('$mode', ({ mode, options, needsToken }) => {
  let mock: StatefulMock;
  const warnings: string[] = [];
  let base: string;
  beforeAll(async () => {
    mock = await startStatefulMock({ ...options, port: 0, warn: (line) => warnings.push(line) });
    base = `http://127.0.0.1:${mock.mock.port}`;
  });
  afterAll(async () => {
    await mock?.close();
  });

  it(`${needsToken ? 'makes up a control token' : 'needs no token'}${mode === 'HOST=0.0.0.0' ? ', and says once that it listens beyond loopback' : ''}`, () => {
    expect(mock.mock.controlToken !== undefined).toBe(needsToken);
    if (needsToken) expect(mock.mock.controlToken).toMatch(/^[0-9a-f]{32}$/);
    expect(warnings.filter((line) => /listening on 0\.0\.0\.0, not only loopback/.test(line))).toHaveLength(mode === 'HOST=0.0.0.0' ? 1 : 0);
  });

  it.each(ORIGINS.flatMap((origin) => TOKENS.map((token) => [origin, token] as const)))('%s, token %s', async (origin, token) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (origin === 'this machine') headers.Origin = 'http://localhost:5173';
    if (origin === 'other origin') headers.Origin = 'https://evil.example';
    if (origin === 'rebound name') headers.Host = `rebound.example:${mock.mock.port}`;
    if (origin === 'webhook delivery') headers['X-Service-Event-ID'] = 'evt_1';
    if (token !== 'none') headers[CONTROL_TOKEN_HEADER] = token === 'right' ? (mock.mock.controlToken ?? 'no-token-needed-here') : 'wrong-token-0000';
    // fetch will not set Host: a raw request carries it.
    const answer = origin === 'rebound name' ? await rawRequest(base, 'POST', '/__mock/clock/advance', headers, '{"seconds":1}') : await post(base, '/__mock/clock/advance', headers, '{"seconds":1}');
    figures.push(`  ${mode.padEnd(14)} ${origin.padEnd(17)} token ${token.padEnd(5)} → ${answer.status}`);
    const expected = allowed(origin, token, needsToken) ? 200 : 403;
    expect(answer.status).toBe(expected);
    if (expected === 403) expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String) });
  });

  it('refuses a change that is not JSON (a page’s simple request), whatever the token', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const answer = await post(base, '/__mock/reset', { ...(contentType ? { 'Content-Type': contentType } : {}), ...(mock.mock.controlToken ? { [CONTROL_TOKEN_HEADER]: mock.mock.controlToken } : {}) }, '');
      expect(answer.status, String(contentType)).toBe(403);
      expect(JSON.parse(answer.body).error).toMatch(/Content-Type: application\/json/);
    }
  });

  it('answers this machine’s preflight, refuses another origin’s (no CORS headers)', async () => {
    const ours = await fetch(`${base}/__mock/reset`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(ours.status).toBe(204);
    expect(ours.headers.get('access-control-allow-origin')).toBe('*');
    const theirs = await fetch(`${base}/__mock/reset`, { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(theirs.status).toBe(403);
    expect(theirs.headers.get('access-control-allow-origin')).toBeNull();
    // The service's own operations stay open to any page.
    const api = await fetch(`${base}/api/v1/account`, { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' } });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('reading stays open: GET /__mock/about and /__mock/clock', async () => {
    for (const path of ['/__mock/about', '/__mock/clock']) expect((await fetch(`${base}${path}`, { headers: { Origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('a reset from a program with what the mode needs works, and forgets the accounts', async () => {
    const key = newKey('reset');
    if (!('strictKeys' in options)) expect((await fetch(`${base}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    const answer = await post(base, '/__mock/reset', { 'Content-Type': 'application/json', ...(mock.mock.controlToken ? { [CONTROL_TOKEN_HEADER]: mock.mock.controlToken } : {}) }, '');
    expect(answer.status).toBe(200);
    expect(Object.values(mock.simulator.state.accounts).some((account) => account.keys.includes(key))).toBe(false);
  });
});

async function post(base: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text() };
}

describe('numbers-api mock prints what the control surface needs', () => {
  it('--strict-keys: a made-up token in the ready lines; --control-token: that one, on loopback too', async () => {
    const { freePort, startCli } = await import('./helpers/mock-process.js');
    const strict = startCli(['mock', '--port', String(await freePort()), '--quiet', '--strict-keys']);
    try {
      const [, token] = (await strict.waitForOutput(/with Content-Type: application\/json and X-Mock-Control-Token: ([0-9a-f]{32})\./))!;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      strict.child.kill('SIGKILL');
      await strict.exited;
    }
    const port = await freePort();
    const given = startCli(['mock', '--port', String(port), '--quiet', '--control-token', 'team-token-1234']);
    try {
      await given.waitForOutput(/X-Mock-Control-Token: team-token-1234\./);
      const refused = await post(`http://127.0.0.1:${port}`, '/__mock/reset', { 'Content-Type': 'application/json' }, '');
      expect(refused.status).toBe(403);
      const done = await post(`http://127.0.0.1:${port}`, '/__mock/reset', { 'Content-Type': 'application/json', [CONTROL_TOKEN_HEADER]: 'team-token-1234' }, '');
      expect(done.status).toBe(200);
    } finally {
      given.child.kill('SIGKILL');
      await given.exited;
    }
  });
});
