// The one command kit (src/cli/, issue 37): every command and subcommand answers --help with exit 0
// and its options, and a bad flag with exit 2, one line and where to read more, as real
// processes; one usage-error class and one stop-on-signal in the whole house; one name (and one
// environment variable) per concept in every command, the old names still accepted for a release
// and marked deprecated in the help; the validators read the contract.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../bin/numbers-api.js';
import { CONFORMANCE } from '../conformance/cli.js';
import { configFromEnv } from '../conformance/config.js';
import { PROXY } from '../conformance/proxy.js';
import { REPLAY } from '../conformance/replay.js';
import { DIFF } from '../scripts/diff/cli.js';
import { helpText, type CommandSpec, type GroupSpec } from '../src/cli/command.js';
import { batchedLines } from '../src/cli/io.js';
import { parseOptions, type Options } from '../src/cli/options.js';
import { untilSignal } from '../src/cli/run-until-signal.js';
import { UsageError } from '../src/cli/usage-error.js';
import { apiKey, phoneNumber } from '../src/cli/validators.js';
import { EVENTS, LIST, SEND } from '../src/event-source/cli.js';
import { LISTEN, TARGETS } from '../src/listen/cli.js';
import { MCP } from '../src/mcp/cli.js';
import { mockCommand } from '../src/mock/cli.js';
import { RECORDINGS, SUMMARIZE } from '../src/recording/cli.js';
import { loadOpenApi, repoRoot } from './helpers/contract.js';

const reports = mkdtempSync(path.join(os.tmpdir(), 'cli-kit-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** The command as a user runs it: a process of its own, none of this runner's settings. */
function run(entry: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_REPORT_DIR: reports };
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name.startsWith('NUMBERS_API_') || (name.startsWith('CONFORMANCE_') && name !== 'CONFORMANCE_REPORT_DIR')) delete env[name];
  return new Promise((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: repoRoot, env, timeout: 60_000 }, (error, out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err })),
  );
}

const bin = 'bin/numbers-api.ts';
const commands: Array<[string, string, string[], CommandSpec]> = [
  ['mock', bin, ['mock'], mockCommand()],
  ['events send', bin, ['events', 'send'], SEND],
  ['events list', bin, ['events', 'list'], LIST],
  ['listen', bin, ['listen'], LISTEN],
  ['listen targets', bin, ['listen', 'targets'], TARGETS],
  ['listen targets list', bin, ['listen', 'targets', 'list'], TARGETS],
  ['conformance', bin, ['conformance'], CONFORMANCE],
  ['conformance --replay', bin, ['conformance', '--replay', 'some.arazzo.json'], REPLAY],
  ['proxy', bin, ['proxy'], PROXY],
  ['conformance --proxy (the old name of proxy)', bin, ['conformance', '--proxy'], PROXY],
  ['mcp', bin, ['mcp'], MCP],
  ['recordings summarize', bin, ['recordings', 'summarize'], SUMMARIZE],
  ['npm run diff', 'scripts/diff.ts', [], DIFF],
  ['npm run baseline', 'scripts/diff/baseline.ts', [], { name: 'npm run baseline --', label: 'baseline', usage: '', options: { force: { type: 'boolean', help: '' } } }],
];
const groups: Array<[string, string[], GroupSpec]> = [
  ['numbers-api', [], COMMANDS],
  ['events', ['events'], EVENTS],
  ['recordings', ['recordings'], RECORDINGS],
];

describe('every command and subcommand, as a process', () => {
  it.each(commands)('%s: --help exits 0 and names its options; a bad flag exits 2 with one line and where to read more', async (_name, entry, args, spec) => {
    const [help, short, bad] = await Promise.all([run(entry, [...args, '--help']), run(entry, [...args, '-h']), run(entry, [...args, '--no-such-flag'])]);
    expect(help.code, help.err).toBe(0);
    expect(short.out).toBe(help.out);
    expect(help.out).toMatch(new RegExp(`^Usage:\\s+${spec.name.replace(/[-.]/g, '\\$&')}`));
    for (const [name, option] of Object.entries(spec.options)) {
      expect(help.out).toContain(`--${name}`);
      for (const old of option.was ?? []) expect(help.out).toMatch(new RegExp(`--${old}\\b.*\\s+deprecated: use --${name}`));
    }
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`${spec.label ?? spec.name}: Unknown option '--no-such-flag'.\nRun ${spec.name} --help for the options.\n`);
  }, 90_000);

  it.each(groups)('%s: --help exits 0 and names its commands; an unknown one exits 2 with one line and where to read more', async (name, args, group) => {
    const [help, bad] = await Promise.all([run(bin, [...args, '--help']), run(bin, [...args, '--no-such-flag'])]);
    expect(help.code).toBe(0);
    for (const command of Object.keys(group.commands)) expect(help.out).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`${group.name}: unknown command "--no-such-flag" (${Object.keys(group.commands).join(', ')}).\nRun ${group.name} --help for the commands.\n`);
    expect(name).toBeTruthy();
  }, 90_000);

  it('every command the dispatcher knows has a row above, with each of its subcommands', () => {
    const rows = new Set(commands.map(([, , args]) => args[0]));
    for (const command of Object.keys(COMMANDS.commands)) expect(rows.has(command) || groups.some(([, args]) => args[0] === command), command).toBe(true);
    for (const [, args, group] of groups.slice(1)) for (const sub of Object.keys(group.commands)) expect(commands.some(([, , a]) => a[0] === args[0] && a[1] === sub), `${args[0]} ${sub}`).toBe(true);
  });
});

/** Every `class ...UsageError` in the house's code. */
function usageErrorClasses(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(file);
      }
      else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) for (const m of readFileSync(file, 'utf8').matchAll(/class (\w*UsageError)\b/g)) found.push(`${path.relative(root, file)}: ${m[1]}`);
    }
  };
  for (const dir of ['src', 'conformance', 'bin', 'scripts']) walk(path.join(root, dir));
  return found;
}

/** Every place that handles SIGINT or SIGTERM itself. */
function signalHandlers(root: string): string[] {
  const found: string[] = [];
  for (const dir of ['src', 'conformance', 'bin']) {
    for (const file of readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join(root, dir, file), 'utf8');
      if (/process\.(on|once)\(\s*'SIG(INT|TERM)'/.test(text)) found.push(path.join(dir, file));
    }
  }
  return found;
}

describe('one of each', () => {
  it('one usage-error class, the kit\'s', () => {
    expect(usageErrorClasses(repoRoot)).toEqual(['src/cli/usage-error.ts: UsageError']);
  });

  it('the scan finds a second one where there is one', () => {
    const root = mkdtempSync(path.join(reports, 'house-'));
    for (const dir of ['src/cli', 'conformance', 'bin', 'scripts/diff']) mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, 'src/cli/usage-error.ts'), 'export class UsageError extends Error {}\n');
    writeFileSync(path.join(root, 'scripts/diff/load.ts'), 'export class DiffUsageError extends Error {}\n');
    expect(usageErrorClasses(root).sort()).toEqual(['scripts/diff/load.ts: DiffUsageError', 'src/cli/usage-error.ts: UsageError']);
  });

  it('one stop on Ctrl-C and SIGTERM (run-until-signal), beside the Prism child, which waits for its parent', () => {
    expect(signalHandlers(repoRoot).sort()).toEqual(['src/cli/run-until-signal.ts', 'src/mock/prism-child.ts']);
  });

  it('run-until-signal stops once, on the first reason, and takes its handlers out when released', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const stop = untilSignal<number>();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual([before[0]! + 1, before[1]! + 1]);
    // Our handler alone (emitting the signal would reach the test runner's own handlers too).
    (process.listeners('SIGTERM').at(-1) as (signal: NodeJS.Signals) => void)('SIGTERM');
    expect(stop.stop(1)).toBe(false);
    expect(await stop.stopped).toBe('SIGTERM');
    stop.release();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    const aborted = new AbortController();
    const own = untilSignal(aborted.signal);
    expect(process.listenerCount('SIGINT')).toBe(before[0]);
    aborted.abort();
    expect(await own.stopped).toBe('SIGTERM');
  });
});

const specs: Array<[string, Options]> = [...commands.map(([name, , , spec]) => [name, spec.options] as [string, Options])];

describe('one name per concept, in every command', () => {
  const concepts = [
    ['api-key', 'NUMBERS_API_KEY'],
    ['base-url', 'NUMBERS_API_BASE_URL'],
    ['control-token', 'NUMBERS_API_CONTROL_TOKEN'],
  ] as const;

  it.each(concepts)('--%s, read from %s when not given, and no other name for it', (flag, variable) => {
    for (const [command, options] of specs) {
      for (const [name, option] of Object.entries(options)) {
        if (name === flag) expect(option.env, `${command} --${name}`).toBe(variable);
        if (option.env === variable) expect(name, `${command} reads ${variable}`).toBe(flag);
      }
    }
    expect(specs.filter(([, options]) => flag in options).length).toBeGreaterThanOrEqual(flag === 'control-token' ? 3 : 4);
  });

  it('a flag means one thing in a command: no name is both an option and another option\'s old name', () => {
    for (const [command, options] of specs) {
      const names = Object.entries(options).flatMap(([name, option]) => [name, ...(option.was ?? [])]);
      expect(new Set(names).size, command).toBe(names.length);
    }
  });

  it('the old names still work for a release, after the new ones, and the help says they are deprecated', () => {
    const env = { CONFORMANCE_API_KEY: 'sk_live_old', CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_MOCK_CONTROL_TOKEN: 'old-token-1' };
    const old = parseOptions(CONFORMANCE.options, ['--mock-control-token', 'flag-token-1'], env);
    expect(old.values).toMatchObject({ 'api-key': 'sk_live_old', 'base-url': 'http://127.0.0.1:9', 'control-token': 'flag-token-1' });
    expect(old.from('api-key')).toBe('CONFORMANCE_API_KEY');
    expect(old.from('control-token')).toBe('--mock-control-token');
    const both = parseOptions(CONFORMANCE.options, [], { ...env, NUMBERS_API_KEY: 'sk_live_new' });
    expect(both.values['api-key']).toBe('sk_live_new');
    expect(both.values['control-token']).toBe('old-token-1');
    expect(configFromEnv(env)).toMatchObject({ apiKey: 'sk_live_old', baseUrl: 'http://127.0.0.1:9', mockControlToken: 'old-token-1' });
    expect(parseOptions(LISTEN.options, ['--control-port', '4567', '--control-token', 'listen-token-1'], {}).values).toMatchObject({ 'targets-port': '4567', 'targets-token': 'listen-token-1' });
    expect(parseOptions(TARGETS.options, ['--control', '4567', '--token', 'listen-token-1'], {}).values).toMatchObject({ 'targets-port': '4567', 'targets-token': 'listen-token-1' });
    const help = helpText(CONFORMANCE);
    expect(help).toMatch(/^ {2}--mock-control-token <token>\n\s+deprecated: use --control-token$/m);
    expect(help).toMatch(/\[env NUMBERS_API_KEY;\s+CONFORMANCE_API_KEY: deprecated\]/);
  });
});

describe('the validators read the contract', () => {
  it('a key begins with the prefix of the contract\'s SignedIn.apiKey pattern (part 5.1), and the key is never echoed', () => {
    expect(apiKey('sk_live_abc', '--api-key')).toBe('sk_live_abc');
    expect(() => apiKey('sk_test_secret', '--api-key')).toThrow(new UsageError('--api-key must be a key beginning sk_live_ (part 5.1).'));
    const other = structuredClone(loadOpenApi());
    other.components.schemas.SignedIn.properties.apiKey.pattern = '^sk_test_';
    expect(apiKey('sk_test_secret', '--api-key', other)).toBe('sk_test_secret');
  });

  it('a phone number is E.164 as the contract\'s E164 schema states it (part 8)', () => {
    expect(phoneNumber('+14155550123', '--to')).toBe('+14155550123');
    expect(() => phoneNumber('4155550123', '--to')).toThrow(UsageError);
    const other = structuredClone(loadOpenApi());
    other.components.schemas.E164.pattern = '^[0-9]+$';
    expect(phoneNumber('4155550123', '--to', other)).toBe('4155550123');
  });
});

describe('the request log, batched (issue 39)', () => {
  it('writes the lines of a burst together, in order, soon, none lost; flush writes what waits at once; a burst past 64 KB is not held', async () => {
    const writes: string[] = [];
    const log = batchedLines((text) => writes.push(text));
    for (let i = 0; i < 100; i++) log.line(`GET /api/v1/account 200 ${i}`);
    // One system call a line is what cost a GET half its throughput: none yet.
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBe(Array.from({ length: 100 }, (_, i) => `GET /api/v1/account 200 ${i}\n`).join(''));
    log.line('one more');
    log.flush();
    expect(writes).toEqual([writes[0], 'one more\n']);
    const long = 'x'.repeat(1023);
    for (let i = 0; i < 64; i++) log.line(long);
    expect(writes).toHaveLength(3);
    expect(writes[2]!.length).toBe(64 * 1024);
  });
});
