// Running the real `numbers-api` command (bin/numbers-api.ts through tsx) as a process, for the CLI tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { repoRoot } from './contract.js';

export const cliEntry = path.join(repoRoot, 'bin', 'numbers-api.ts');

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout matches, rejects when the process exits first or after `ms`. */
  waitForOutput(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `numbers-api <args>` (in its own process group when `detached`, as a terminal job is). */
export function startCli(args: string[], options: { env?: Record<string, string>; detached?: boolean; command?: string[] } = {}): CliProcess {
  const [command, ...commandArgs] = options.command ?? [process.execPath, '--import', 'tsx', cliEntry];
  const child = spawn(command!, [...commandArgs, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(pattern, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const match = out.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
          return Boolean(match);
        };
        const onExit = (): void => {
          if (check()) return;
          cleanup();
          reject(new Error(`exited before printing ${pattern}:\n${out}\n${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${ms} ms:\n${out}\n${err}`));
        }, ms);
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('exit', onExit);
        };
        if (check()) return;
        child.stdout!.on('data', check);
        child.once('exit', onExit);
      });
    },
  };
}

/**
 * Starts the command in its own process group, as a terminal job is, for a test that signals the
 * group; whatever is left of the group is killed when the test ends, pass or fail.
 */
export function startCliGroup(args: string[], options: { env?: Record<string, string>; command?: string[] } = {}): CliProcess {
  const cli = startCli(args, { ...options, detached: true });
  onTestFinished(() => {
    try {
      process.kill(-cli.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return cli;
}

/** Runs `numbers-api <args>` to its end. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, { env });
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Pids of the live descendants of `pid` (Linux /proc). */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...; comm may contain spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A zombie has exited; only its exit status is left for its parent to collect.
    return state.slice(state.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

export async function waitUntil(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** The Prism processes of a running mock (their command line names prism-child). */
export function prismProcessesOf(pid: number): number[] {
  return descendantsOf(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('prism-child');
    } catch {
      return false;
    }
  });
}
