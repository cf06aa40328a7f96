// The Prism processes behind the example server (`--stateless`): each runs prism-child.ts, Prism
// 5.14.2's own HTTP server on a loopback port. The pool answers requests in turn (round robin);
// requests wait for the first Prism to answer; `stop` ends them all, and a Prism never outlives
// its mock (see prism-child.ts).
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PrismChildMessage, PrismChildOptions } from './prism-child.js';

/**
 * How to run prism-child: the compiled .js as is; the .ts source through tsx's ESM loader only
 * (`tsx/esm`). Plain `tsx` also hooks `require`, and Prism is about a thousand CommonJS modules:
 * going through that hook costs over a second of start-up.
 */
function childEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const file = path.join(path.dirname(here), `prism-child${extension}`);
  if (extension !== '.ts') return { file, execArgv: [] };
  return { file, execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href] };
}

/** One request straight to Prism (a path of the description it serves); resolves when it is answered (any status). */
function firstRequest(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
        response.resume();
        response.on('end', resolve);
      })
      .on('error', reject);
  });
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };
type Listening = Extract<PrismChildMessage, { type: 'listening' }>;

interface PrismWorker {
  /** Resolves once this Prism has answered its first request. */
  ready: Promise<Listening>;
  exited: Promise<Exit>;
  stop(): Promise<void>;
}

function startWorker(options: PrismChildOptions): PrismWorker {
  const { file, execArgv } = childEntry();
  const child = fork(file, [], {
    execArgv,
    env: { ...process.env, NUMBERS_API_PRISM_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<Listening>((resolve, reject) => {
    child.on('message', (message: PrismChildMessage) => {
      if (message.type === 'listening') resolve(message);
      else if (message.type === 'error') reject(new Error(`Prism could not start on ${options.document}: ${message.message}`));
    });
    child.once('error', (error) => reject(new Error(`Prism could not be started: ${error.message}`)));
    void exited.then(({ code, signal }) => reject(new Error(`Prism exited before it was ready (${signal ?? `exit code ${code}`}).`)));
  });
  const ready = listening.then((message) => firstRequest(message.port, message.warmUpPath).then(() => message));
  ready.catch(() => undefined);
  return {
    ready,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM ends it at any stage: before it listens by default, after by its own handler.
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killTimer);
    },
  };
}

/**
 * Prism processes by default: Prism handles one request at a time on one core (about 0.4 ms of
 * CPU for a small request, most of it matching the path against every operation), and the example
 * server does little else, so a second process lets a two-core machine answer about half again as
 * many requests.
 */
export function defaultPrismWorkers(): number {
  return Math.min(2, os.availableParallelism());
}

export interface PrismPool {
  /** The port of the Prism to send the next request to; waits while none is ready (the first, or a replacement). */
  upstreamPort(): Promise<number>;
  /** Told that a port refused a connection (its Prism is dying): not handed out again. */
  down(port: number): void;
  /** Resolves once the first Prism answered its first request. */
  ready: Promise<{ prismVersion: string; operations: number; prismPort: number }>;
  /**
   * Resolves when the pool stops serving, for whatever reason: `stop`, a Prism stopped by the
   * group's Ctrl-C, the first Prism failing to start, or a replacement failing to start. A Prism
   * that dies while serving is replaced, and does not end the pool.
   */
  exited: Promise<Exit>;
  stop(): Promise<void>;
}

/**
 * `count` Prism processes answering in turn. One that dies while serving (whatever killed it) is
 * replaced at once and said in `log`; requests wait for a ready one meanwhile.
 */
export function startPrismPool(options: PrismChildOptions, count: number, log: (line: string) => void = () => undefined): PrismPool {
  const workers = new Set<PrismWorker>();
  /** Ports of the Prisms that answer now. */
  const ports: number[] = [];
  let waiting: Array<{ resolve: (port: number) => void; reject: (error: Error) => void }> = [];
  let turn = 0;
  let stopping = false;
  let gaveUp: Error | undefined;
  let endPool: (exit: Exit) => void = () => undefined;
  const exited = new Promise<Exit>((resolve) => (endPool = resolve));

  const giveUp = (exit: Exit, reason: Error): void => {
    gaveUp = reason;
    for (const waiter of waiting.splice(0)) waiter.reject(reason);
    endPool(exit);
  };

  function spawn(first: boolean): PrismWorker {
    const worker = startWorker(options);
    workers.add(worker);
    let port: number | undefined;
    worker.ready.then(
      (message) => {
        if (stopping) return;
        port = message.port;
        ports.push(port);
        for (const waiter of waiting.splice(0)) waiter.resolve(port);
      },
      () => undefined, // seen in `exited` below
    );
    void worker.exited.then((exit) => {
      workers.delete(worker);
      if (port !== undefined && ports.includes(port)) ports.splice(ports.indexOf(port), 1);
      if (stopping) return;
      // Ctrl-C signals the whole group: a Prism gone by it is a stop, not a death to repair.
      if (exit.signal === 'SIGINT') return endPool(exit);
      if (port === undefined) {
        // Never ready: the first failing to start fails the mock (its `ready` says why); a
        // replacement failing to start means Prism cannot run here any more.
        if (!first) log(`A replacement Prism process could not start (${exit.signal ?? `exit code ${exit.code}`}); stopping.`);
        return giveUp(exit, new Error(`Prism exited before it was ready (${exit.signal ?? `exit code ${exit.code}`}).`));
      }
      log(`A Prism process stopped (${exit.signal ?? `exit code ${exit.code}`}); starting another.`);
      spawn(false);
    });
    return worker;
  }

  // The first Prism starts at once; the others after it has answered, so as not to slow it down.
  const first = spawn(true);
  const ready = first.ready.then((message) => {
    for (let i = 1; i < count && !stopping; i++) spawn(false);
    return { prismVersion: message.prismVersion, operations: message.operations, prismPort: message.port };
  });
  ready.catch(() => undefined);

  return {
    upstreamPort() {
      if (ports.length > 0) return Promise.resolve(ports[turn++ % ports.length]!);
      if (gaveUp) return Promise.reject(gaveUp);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    down(port) {
      if (ports.includes(port)) ports.splice(ports.indexOf(port), 1);
    },
    ready,
    exited,
    async stop() {
      stopping = true;
      await Promise.all([...workers].map((worker) => worker.stop()));
      for (const waiter of waiting.splice(0)) waiter.reject(new Error('the mock is stopping'));
      endPool({ code: 0, signal: null });
    },
  };
}
