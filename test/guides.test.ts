// The guides (docs/guides/*.md) cannot go stale: what they say about the contract is a generated
// region that must equal what the contract gives today (`npm run guides`), they read correctly
// on GitHub and in the tarballs (no bare marker, links to other guides as relative .md files that
// exist), and every fact they (and README) state about the package's behaviour is checked here
// against the code that has it: its constants, its command line, and the mock itself.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadContract, operationLinker } from '../docs/build/contract.mjs';
import { refreshGuideSource } from '../docs/build/guides.mjs';
import { relativeLinks } from '../scripts/readme-links.mjs';
import { guideSources, guidesDir } from '../scripts/guides.mjs';
import { DEFAULT_TIMEOUT_SECONDS } from '../src/delivery/deliver.js';
import { createHandlers, manualClock } from '../src/msw/index.js';
import { MAX_BODY_BYTES } from '../src/serve/request-body.js';
import { EVENT_LOG_LIMIT, HISTORY_LIMIT, LIST_LIMIT } from '../src/simulator/state.js';
import { CONFORMANCE } from '../conformance/cli.js';
import { PROXY } from '../conformance/proxy.js';
import { REPLAY } from '../conformance/replay.js';
import { DIFF } from '../scripts/diff/cli.js';
import { helpText } from '../src/cli/command.js';
import { LIST, SEND } from '../src/event-source/cli.js';
import { LISTEN, TARGETS } from '../src/listen/cli.js';
import { MCP } from '../src/mcp/cli.js';
import { mockCommand } from '../src/mock/cli.js';
import { SUMMARIZE } from '../src/recording/cli.js';
import { DEFAULT_MAX_SNAPSHOT_BYTES } from '../src/store/snapshots.js';
import { loadOpenApi, repoRoot } from './helpers/contract.js';

const run = promisify(execFile);
const guides = guideSources();
const read = (file: string) => readFileSync(path.join(guidesDir, file), 'utf8');
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const openapi = loadOpenApi();
const testValue = (name: string) => (openapi['x-test-values'] as { name: string; value: string }[]).find((t) => t.name === name)!.value;
/** Prose only: fenced blocks and code spans removed (where a link is written, not shown). */
const prose = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

describe('the guides read right on GitHub and in the tarballs', () => {
  it.each(guides.map((g) => [g.file, g]))('%s: its generated regions are what the contract gives today (npm run guides)', (_file, guide) => {
    expect(guide.source).toBe(guide.fresh);
  });

  it.each(guides.map((g) => [g.file]))('%s: no bare "generated" marker, no link to a built page, every relative link a file that exists', (file) => {
    const source = read(file);
    expect(source).not.toMatch(/^<!-- generated: /m);
    const links = relativeLinks(source);
    expect(links.filter((l: string) => l.endsWith('.html'))).toEqual([]);
    for (const link of links) expect(existsSync(path.join(guidesDir, link)), `${file} links to ${link}`).toBe(true);
    // A link written as a site page name reads as a dead link on GitHub.
    expect(prose(source)).not.toMatch(/\]\([\w-]+\.html/);
  });

  it('the README links every guide, so both tarballs carry them (scripts/copy-package-docs.mjs)', () => {
    const linked = relativeLinks(readme);
    for (const { file } of guides) expect(linked, file).toContain(`docs/guides/${file}`);
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('docs/guides/*.md');
  });

  it('a stale region differs from the fresh one, and npm run guides rewrites it from the contract', () => {
    const guide = guides.find((g) => g.file === 'errors.md')!;
    const stale = guide.source.replace(/^\| <a id="code-call_limit_reached"><\/a>[^\n]*$/m, '| `call_limit_reached` | 418 | made up | nothing |');
    expect(stale).not.toBe(guide.source);
    const contract = loadContract();
    expect(refreshGuideSource(stale, { ...contract, linkOperation: operationLinker(contract.openapi) })).toBe(guide.source);
    expect(() => refreshGuideSource('# T\n\n<!-- generated: error-codes -->\n', { ...contract, linkOperation: operationLinker(contract.openapi) })).toThrow(/bare/);
  });
});

describe('facts the guides and README state, checked against the code', () => {
  const mock = read('mock.md');
  const events = read('events.md');
  const number = (text: string, pattern: RegExp, where: string) => {
    const match = pattern.exec(text);
    expect(match, `${where} states it (${pattern})`).not.toBeNull();
    return Number(match![1]!.replace(/,/g, ''));
  };

  it('history and event log sizes (src/simulator/state.ts)', () => {
    expect(number(mock, /keeps its ([\d,]+) most recent messages and calls/, 'mock.md')).toBe(HISTORY_LIMIT);
    expect(number(mock, /the lists answer the ([\d,]+) most recent/, 'mock.md')).toBe(LIST_LIMIT);
    expect(number(mock, /its ([\d,]+) most recent events/, 'mock.md')).toBe(EVENT_LOG_LIMIT);
    expect(number(events, /within the account's last ([\d,]+)\)/, 'events.md')).toBe(EVENT_LOG_LIMIT);
  });

  it('what snapshots may hold together (src/store/snapshots.ts)', () => {
    expect(number(mock, /all snapshots together hold at most (\d+) MiB of JSON/, 'mock.md') * 1024 * 1024).toBe(DEFAULT_MAX_SNAPSHOT_BYTES);
  });

  it('the largest body (src/serve/request-body.ts)', () => {
    expect(number(mock, /a body over (\d+) MB/, 'mock.md') * 1024 * 1024).toBe(MAX_BODY_BYTES);
  });

  it("the local fan-out's default timeout (src/delivery/deliver.ts)", () => {
    for (const [where, text] of [
      ['events.md', events],
      ['local-tools.md', read('local-tools.md')],
    ] as const) {
      const stated = [...text.matchAll(/--timeout`?[^.]*?\(default (\d+)\)|within `--timeout`\s+seconds \(default (\d+)\)/g)].map((m) => Number(m[1] ?? m[2]));
      expect(stated.length, `${where} states the --timeout default`).toBeGreaterThan(0);
      for (const value of stated) expect(value, where).toBe(DEFAULT_TIMEOUT_SECONDS);
    }
  });

  it('the sign-up code, wherever a guide or README names one, is the signupCode test value', () => {
    const code = testValue('signupCode');
    let named = 0;
    for (const [file, text] of [...guides.map((g) => [g.file, g.source] as const), ['README.md', readme] as const]) {
      for (const m of text.matchAll(/code(?: is|s? (?:are|is) right when they are)? `(\d{6})`/g)) {
        named += 1;
        expect(m[1], file).toBe(code);
      }
    }
    expect(named).toBeGreaterThan(1);
  });

  it("the mock's pace: a message reports delivery within about 2 s, a call ends within about 10 s (mock.md)", async () => {
    const seconds = (text: string, pattern: RegExp) => number(text, pattern, 'the text');
    const delivery = seconds(mock, /reports delivery within\s+about (\d+) seconds/);
    const callEnd = seconds(mock, /reaches Terminated within about (\d+)/);
    const clock = manualClock();
    const { handlers, control, simulator } = createHandlers({ clock });
    const { getResponse } = await import('msw');
    const key = 'sk_live_guide_facts';
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await getResponse(handlers, new Request(`http://127.0.0.1:4010${url}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined }));
      return (await response!.json()) as any;
    };
    try {
      const [line] = await call('GET', '/api/v1/numbers');
      const message = await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: line.id, body: 'facts' });
      const placed = await call('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: line.id, outboundInstruction: 'Facts.' });
      const seen = () => simulator.accountForKey(key)!.events.map((e) => e.event);
      control.advanceClock(delivery);
      expect(seen().some((e) => e.type === 'message.status_changed' && (e.data as { messageId: string }).messageId === message.id)).toBe(true);
      control.advanceClock(callEnd - delivery);
      expect(seen().some((e) => e.type === 'call.status_changed' && (e.data as { terminationType?: unknown }).terminationType && e.relatedObject?.id === placed.id)).toBe(true);
    } finally {
      control.stop();
    }
  });

  it('every --option the guides and README name is one the command (or npm) accepts', async () => {
    // Our commands' help is the text their specs make (test/cli-kit.test.ts runs each as a process
    // and finds every option of its spec there); the tools of others answer as processes.
    const ours = [mockCommand(), SEND, LIST, LISTEN, TARGETS, CONFORMANCE, REPLAY, PROXY, MCP, SUMMARIZE, DIFF].map((spec) => ({ stdout: helpText(spec), stderr: '' }));
    const helps = await Promise.all([
      run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'docs/build/build.mjs'), '--help'], { cwd: repoRoot }),
      run(process.execPath, [path.join(repoRoot, 'scripts/guides.mjs'), '--help'], { cwd: repoRoot }).catch(() => ({ stdout: '--check', stderr: '' })),
      // `redocly respect`, which the README runs the workflows with.
      run(process.execPath, [path.join(repoRoot, 'node_modules/@redocly/cli/bin/cli.js'), 'respect', '--help'], { cwd: repoRoot }),
      run(process.execPath, [path.join(repoRoot, 'scripts/tools-install.mjs')], { cwd: repoRoot }),
    ]);
    const known = new Set([...ours, ...helps].flatMap((h) => `${h.stdout}${h.stderr}`.match(/--[a-z][a-z-]*/g) ?? []));
    // npm's own options, in the install and pack commands the README gives.
    for (const npm of ['--save-dev', '--save', '--save-exact', '--workspaces', '--include-workspace-root', '--pack-destination']) known.add(npm);
    // redis-server's own directives, in README's recipe of a mock a team hosts: the recipe runs as
    // written in test/mock-team-recipe.test.ts, where a directive Redis does not know stops it.
    for (const redis of ['--bind', '--appendonly', '--appendfsync', '--maxmemory-policy', '--dir']) known.add(redis);
    const named = new Set([readme, ...guides.map((g) => g.source)].flatMap((text) => text.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []));
    expect([...named].filter((option) => !known.has(option)).sort()).toEqual([]);
  }, 60_000);
});
