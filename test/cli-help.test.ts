// `numbers-api --help` says what each command is today (issue 26): the mock is the stateful mock
// (Prism only behind --stateless), and proxy forwards to a deployment and checks what passes (it
// does not run the conformance suite). Every command the dispatcher knows is listed, and only those.
import { describe, expect, it } from 'vitest';
import { COMMANDS, USAGE, main } from '../bin/numbers-api.js';

/** Each command's description in the top-level help, continuation lines joined. */
function described(): Map<string, string> {
  const lines = USAGE.slice(USAGE.indexOf('Commands:\n') + 'Commands:\n'.length, USAGE.indexOf('\n\n', USAGE.indexOf('Commands:'))).split('\n');
  const out = new Map<string, string>();
  let last = '';
  for (const line of lines) {
    const m = /^ {2}(\S+(?: \S+)?)\s{2,}(.*)$/.exec(line);
    if (m) out.set((last = m[1]!), m[2]!);
    else out.set(last, `${out.get(last)} ${line.trim()}`);
  }
  return out;
}

describe('numbers-api --help', () => {
  it('lists every command the dispatcher runs, and no other', () => {
    expect([...described().keys()]).toEqual(Object.keys(COMMANDS.commands));
  });

  it('calls the mock what it is: the stateful mock, the examples only behind --stateless', () => {
    const mock = described().get('mock')!;
    expect(mock).toMatch(/stateful mock/);
    expect(mock).toMatch(/--stateless/);
    expect(mock).not.toMatch(/Prism/);
  });

  it('calls proxy what it is: it forwards to a deployment and checks what passes against the contract', () => {
    const proxy = described().get('proxy')!;
    expect(proxy).toMatch(/forward/);
    expect(proxy).toMatch(/against\s+the contract/);
    expect(proxy).not.toMatch(/conformance checks/);
  });

  it('prints it and exits 0', async () => {
    let out = '';
    expect(await main(['--help'], { stdout: (text: string) => (out += text), stderr: () => {} } as never)).toBe(0);
    expect(out).toBe(USAGE);
  });
});
