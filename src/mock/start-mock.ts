// Starting and stopping the mock: Prism (in a child process, see prism-child.ts) behind the front
// (front.ts). `startMock` resolves once the front listens; `ready` resolves once Prism has
// answered its first request; `close` stops both, Prism included.
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generatedPath, loadOpenApi, readGeneratedJson } from './description.js';
import { controlSurface } from '../simulator/control.js';
import { startRunner } from '../simulator/runner.js';
import { createSimulator, type Simulator } from '../simulator/simulator.js';
import type { SeedFile } from '../simulator/seed.js';
import { contractValidator, type ContractValidator } from '../simulator/validator.js';
import { persistState, readStateFile } from './state-file.js';
import { startWebhookDelivery } from './webhook-delivery.js';
import { statefulTransport } from './simulator-http.js';
import { startFront, type Front } from './front.js';
import type { PrismChildMessage, PrismChildOptions } from './prism-child.js';
import { requestMatcher } from './secured-operations.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;

/**
 * The description Prism serves by default: the bundle with every `$ref` already resolved. Prism
 * dereferences a `$ref`'d description itself and then shares one schema object between the
 * operations that referenced it, which is where stoplightio/prism#2574 (a shared request-body
 * schema left unvalidated) comes from; with no `$ref` left, nothing is shared. (The tests in
 * test/mock-requests.test.ts pass on the YAML bundle as well: this description does not hit
 * #2574 either way.) JSON also loads in about two thirds of the CPU time of the YAML bundle.
 */
export function defaultDocument(): string {
  return generatedPath('openapi.dereferenced.json');
}

export interface MockOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The description Prism serves; `defaultDocument()` unless given. */
  document?: string;
  /** Receives one line per request; omit for none. */
  log?: (line: string) => void;
  /** Prism's own log level (`silent` by default: its per-request logging costs most of its throughput). */
  prismLogLevel?: string;
  /**
   * Prism also validates its own answers against their schemas (default false; `prism mock`
   * always does). The answers are the documented examples, which test/contract-examples.test.ts
   * validates against their schemas already; Prism's check only adds an `sl-violations` header
   * when one does not match, and costs about a third of its CPU per request (scripts/bench/mock.mjs).
   */
  validateResponse?: boolean;
  /** How many Prism processes share the requests (default: `defaultPrismWorkers(stateless)`). */
  prismWorkers?: number;
  /** Serve the documented examples only, keeping no state (`--stateless`). Default false. */
  stateless?: boolean;
  /** Your own starting data (`--seed`); the demo seed built from the contract's examples otherwise. */
  seed?: SeedFile;
  /** Keep the state in this file across restarts (`--state`). */
  statePath?: string;
  /** Accept only keys the sign-up issued or the seed names (`--strict-keys`). */
  strictKeys?: boolean;
  /** The right email and SMS sign-up code (`--signup-code`, default 123456). */
  signupCode?: string;
  /**
   * Check every answer the simulator composes against the contract: `header` (an `sl-violations`
   * header, with `validateResponse`) or `strict` (answers 500). Default: `$NUMBERS_API_MOCK_VALIDATE`
   * (`strict` in this package's own tests), else `header` with `validateResponse`, else off.
   */
  validateComposed?: 'off' | 'header' | 'strict';
}

export interface RunningMock {
  /** The front's base URL, e.g. `http://127.0.0.1:4010`. */
  url: string;
  host: string;
  port: number;
  document: string;
  /** Resolves once Prism answered its first request, with Prism's version and operation count. */
  ready: Promise<{ prismVersion: string; operations: number; prismPort: number }>;
  /** The simulator behind the stateful mock (undefined with `stateless`). */
  simulator?: Simulator;
  /** Resolves when Prism exits, for whatever reason (`close` included). */
  prismExited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  close(): Promise<void>;
}

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
  const tsxEsm = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return { file, execArgv: ['--import', tsxEsm] };
}

function forkPrism(options: PrismChildOptions): ChildProcess {
  const { file, execArgv } = childEntry();
  return fork(file, [], {
    execArgv,
    env: { ...process.env, NUMBERS_API_PRISM_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
}

/** One request straight to Prism; resolves when it is answered (any status). */
function firstRequest(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/api/v1/account', agent: false }, (response) => {
        response.resume();
        response.on('end', resolve);
      })
      .on('error', reject);
  });
}

interface PrismWorker {
  child: ChildProcess;
  /** Resolves once this Prism has answered its first request. */
  ready: Promise<Extract<PrismChildMessage, { type: 'listening' }>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

function startWorker(options: PrismChildOptions): PrismWorker {
  const child = forkPrism(options);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const listening = new Promise<Extract<PrismChildMessage, { type: 'listening' }>>((resolve, reject) => {
    child.on('message', (message: PrismChildMessage) => {
      if (message.type === 'listening') resolve(message);
      else if (message.type === 'error') reject(new Error(`Prism could not start on ${options.document}: ${message.message}`));
    });
    child.once('error', (error) => reject(new Error(`Prism could not be started: ${error.message}`)));
    void exited.then(({ code, signal }) => reject(new Error(`Prism exited before it was ready (${signal ?? `exit code ${code}`}).`)));
  });
  const ready = listening.then(async (message) => {
    await firstRequest(message.port);
    return message;
  });
  ready.catch(() => undefined);
  return {
    child,
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
 * Prism processes by default. Prism handles one request at a time on one core (about 0.4 ms of
 * CPU for a small request, most of it matching the path against every operation). The example
 * server (`stateless`) does little else, so a second process lets a two-core machine answer about
 * half again as many requests; the stateful mock's front does its share of work per request too,
 * and there one Prism process answers more (scripts/bench/mock.mjs: POST /api/v1/messages about
 * 1,900 against 1,500 requests/s here with two), since two oversubscribe two cores.
 */
export function defaultPrismWorkers(stateless = false): number {
  return stateless ? Math.min(2, os.availableParallelism()) : 1;
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const host = options.host ?? DEFAULT_HOST;
  const document = path.resolve(options.document ?? defaultDocument());
  const workerOptions: PrismChildOptions = {
    document,
    logLevel: options.prismLogLevel ?? 'silent',
    validateResponse: options.validateResponse ?? false,
  };
  const workerCount = Math.max(1, options.prismWorkers ?? defaultPrismWorkers(options.stateless));

  // Prism first: loading it is most of the start-up time, so everything else happens meanwhile.
  const first = startWorker(workerOptions);
  const workers: PrismWorker[] = [first];
  // Ports of the Prisms that answer, in turn (round robin); requests wait for the first one.
  const ports: number[] = [];
  let turn = 0;
  const firstPort = first.ready.then((message) => {
    ports.push(message.port);
    return message.port;
  });
  firstPort.catch(() => undefined);
  const upstreamPort = (): Promise<number> => (ports.length > 0 ? Promise.resolve(ports[turn++ % ports.length]!) : firstPort);

  let stopping = false;
  let front: Front;
  let simulator: Simulator | undefined;
  let stopSimulation = (): void => undefined;
  try {
    const match = requestMatcher(loadOpenApi());
    let stateful: ReturnType<typeof statefulTransport> | undefined;
    if (!options.stateless) {
      const state = options.statePath ? readStateFile(options.statePath) : undefined;
      simulator = createSimulator({
        document: loadOpenApi(),
        seed: options.seed,
        state,
        options: { strictKeys: options.strictKeys ?? false, ...(options.signupCode ? { signupCode: options.signupCode } : {}) },
      });
      const runner = startRunner(simulator);
      const persistence = options.statePath ? persistState(simulator, options.statePath) : undefined;
      const webhooks = startWebhookDelivery({ simulator, log: options.log });
      stopSimulation = () => {
        runner.stop();
        persistence?.stop();
        webhooks.stop();
      };
      const envMode = process.env.NUMBERS_API_MOCK_VALIDATE;
      const validateResponses =
        options.validateComposed ?? (envMode === 'strict' || envMode === 'header' ? envMode : options.validateResponse ? 'header' : 'off');
      let validator: ContractValidator | undefined;
      const sim = simulator;
      stateful = statefulTransport({
        simulator: sim,
        control: controlSurface(sim, readGeneratedJson('mock-control.json')),
        runner,
        validateResponses,
        responseValidator: () => (validator ??= contractValidator(sim.contract)),
      });
      runner.reschedule();
    }
    front = await startFront({ host, port: options.port ?? DEFAULT_PORT, match, upstreamPort, log: options.log, stateful });
  } catch (error) {
    stopSimulation();
    await first.stop();
    throw error;
  }

  // The mock is ready with the first Prism; the others start after it, so as not to slow it down.
  const ready = first.ready.then((message) => {
    for (let i = 1; i < workerCount && !stopping; i++) {
      const worker = startWorker(workerOptions);
      workers.push(worker);
      worker.ready.then(
        (extra) => {
          if (!stopping) ports.push(extra.port);
        },
        () => undefined, // the first Prism serves alone; a failure to start shows in prismExited
      );
    }
    return { prismVersion: message.prismVersion, operations: message.operations, prismPort: message.port };
  });
  ready.catch(() => undefined);

  // Any Prism stopping on its own is the mock failing; `close` stops them all.
  const prismExited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    void first.exited.then(resolve);
    void ready.then(() => {
      for (const worker of workers.slice(1)) void worker.exited.then(resolve);
    });
  });

  const close = async (): Promise<void> => {
    if (!stopping) {
      stopping = true;
      stopSimulation();
      const frontClosed = front.close();
      await Promise.all(workers.map((worker) => worker.stop()));
      await frontClosed;
    }
    await Promise.all(workers.map((worker) => worker.exited));
  };

  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${urlHost}:${front.port}`, host, port: front.port, document, ready, prismExited, close, simulator };
}
