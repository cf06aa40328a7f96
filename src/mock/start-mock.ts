// Starting and stopping the mock. Two kinds, one entry point, one pipeline
// (http-transport.ts → src/serve/pipeline.ts), which parts at its responder:
// - the stateful mock (default): one process, the simulator answers (src/serve/mock-core.ts);
//   no Prism process, no example built and thrown away. `ready` resolves at once.
// - the example server (`stateless`): Prism processes (prism-workers.ts) that serve the documented
//   examples answer, then the rules (prism-responder.ts). `ready` resolves once Prism answered.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { generatedPath, loadOpenApi, readGeneratedJson } from '../contract/generated-files.js';
import { listOperations } from '../contract/operations.js';
import { createMockCore } from '../serve/mock-core.js';
import type { SimStorage, Simulator } from '../simulator/simulator.js';
import type { SeedFile } from '../simulator/seed.js';
import type { SimState } from '../simulator/state.js';
import { describeWriteError, readStateWithJournal, removeStaleTemporaries } from '../store/state-file.js';
import { fileStore } from '../store/file-store.js';
import { readSnapshotsBeside, snapshotsBeside } from '../store/snapshot-files.js';
import type { SnapshotFile } from '../store/store.js';
import { connectRedis, redisStore } from '../store/redis-store.js';
import { stateProblems } from '../store/state-schema.js';
import { guardHeap } from './heap-guard.js';
import { logEvictions } from './eviction-log.js';
import { controlAccess, isLoopbackHost, newControlToken } from './control-access.js';
import { startWebhookDelivery } from './webhook-delivery.js';
import { pipelineListener, serveHttp, type HttpDoor } from './http-transport.js';
import type { ProtocolTimeouts } from './client-errors.js';
import { prismResponder } from './prism-responder.js';
import { defaultPrismWorkers, startPrismPool } from './prism-workers.js';
import { operationFacts } from './route-facts.js';
import { keyPrefix, wellFormedKey } from '../contract/api-key.js';
import { createPipeline } from '../serve/pipeline.js';
import { simContract } from '../simulator/contract.js';
import { prismGate } from './prism-gate.js';
import { writeRecordings, type RecordingFiles } from '../recording/recording-files.js';

export { defaultPrismWorkers } from './prism-workers.js';

export const DEFAULT_HOST = '127.0.0.1';

/** Where the state or the recordings are to be kept cannot be used (a store unreachable or misconfigured, a state file refused, a directory missing or not writable): the command says so in one line and exits 2. */
export class StoreStartError extends Error {}

/** Refuses, before anything starts, a directory the mock is to write in and cannot (`make`: made when missing). */
function writableDirectory(dir: string, flag: string, make: boolean): void {
  let problem: string | undefined;
  try {
    if (make) mkdirSync(dir, { recursive: true });
    if (statSync(dir).isDirectory()) accessSync(dir, constants.W_OK);
    else problem = `${dir} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem = code === 'EEXIST' || code === 'ENOTDIR' ? `${dir} is not a directory (a file stands in its path)` : `cannot write in ${dir}: ${describeWriteError(error as NodeJS.ErrnoException)}`;
  }
  if (problem) throw new StoreStartError(`${flag}: ${problem}.`);
}

export const DEFAULT_PORT = 4010;

/**
 * The description Prism serves by default (`--stateless`): the bundle with every `$ref` already
 * resolved. Prism dereferences a `$ref`'d description itself and then shares one schema object
 * between the operations that referenced it, which is where stoplightio/prism#2574 (a shared
 * request-body schema left unvalidated) comes from; with no `$ref` left, nothing is shared. JSON
 * also loads in about two thirds of the CPU time of the YAML bundle.
 */
export function defaultDocument(): string {
  return generatedPath('openapi.dereferenced.json');
}

export interface MockOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Receives one line per request; omit for none. */
  log?: (line: string) => void;
  /**
   * Receives what the person running the mock must see even with `--quiet`: a state file that
   * cannot be written, accounts evicted, a control surface open beyond loopback. Default: stderr.
   */
  warn?: (line: string) => void;
  /** Serve the documented examples only, keeping no state, through Prism (`--stateless`). Default false. */
  stateless?: boolean;
  /** With `stateless`: the description Prism serves; `defaultDocument()` unless given. */
  document?: string;
  /** With `stateless`: Prism's own log level (`silent` by default: its per-request logging costs most of its throughput). */
  prismLogLevel?: string;
  /** With `stateless`: how many Prism processes share the requests (default `defaultPrismWorkers()`). */
  prismWorkers?: number;
  /**
   * Check every answer against its schema: with `stateless`, Prism checks its examples (an
   * `sl-violations` header; `prism mock` always does, at about a third of its CPU per request);
   * the stateful mock checks the answers it composes, reported in the same header (without it, as
   * `$NUMBERS_API_MOCK_VALIDATE` asks: `strict` in this package's own tests; src/serve/pipeline.ts).
   */
  validateResponse?: boolean;
  /** Your own starting data (`--seed`); the demo seed built from the contract's examples otherwise. */
  seed?: SeedFile;
  /** Keep the state in this file across restarts (`--state`). */
  statePath?: string;
  /**
   * Keep the state in Valkey/Redis (`--store redis://host:port/db`): any number of mock processes
   * given the same store serve the same accounts (src/store/redis-store.ts).
   */
  storeUrl?: string;
  /**
   * Snapshot files to keep under their names (`--snapshot <file>`, src/store/snapshots.ts);
   * the last is brought back at start when the store held no state yet.
   */
  snapshots?: SnapshotFile[];
  /** Accept only keys the sign-up issued or the seed names (`--strict-keys`). */
  strictKeys?: boolean;
  /** The right email and SMS sign-up code (`--signup-code`, default 123456). */
  signupCode?: string;
  /** Live accounts at most (`--max-accounts`, default 10,000); past it the least recently used is evicted, said in `warn`. */
  maxAccounts?: number;
  /** What one account may hold, in bytes of JSON (`--max-account-bytes`, default 16 MB). */
  maxAccountBytes?: number;
  /** What all named snapshots may hold together, in bytes of JSON (`--max-snapshot-bytes`, default 64 MiB, src/store/snapshots.ts). */
  maxSnapshotBytes?: number;
  /**
   * The stateful mock's contract gate: `ajv` (default), compiled from the bundle, or `prism`,
   * Prism's own validator in-process (src/mock/prism-gate.ts). Both give Prism's verdicts
   * (test/gate-parity.test.ts); `npm run bench` measures both.
   */
  gate?: 'ajv' | 'prism';
  /**
   * The control token (`--control-token`): changes on the control surface need it in
   * `X-Mock-Control-Token`. Without one, a token is made up at start under `strictKeys` or on an
   * address other than loopback (`controlToken` of the running mock says which); none otherwise.
   */
  controlToken?: string;
  /** Shorter protocol timeouts (tests); Node's defaults otherwise. */
  timeouts?: ProtocolTimeouts;
  /** Record every account's requests as an Arazzo workflow, one file each in this directory (`--record`, src/recording/). */
  recordDir?: string;
}

export interface RunningMock extends HttpDoor {
  host: string;
  /** The description it answers from. */
  document: string;
  /** Resolves once the mock answers: at once for the stateful mock, after Prism's first answer with `stateless`. */
  ready: Promise<{ operations: number; prism?: { version: string; port: number } }>;
  /** The simulator behind the stateful mock (undefined with `stateless`). */
  simulator?: Simulator;
  /** The token changes on the control surface need (`X-Mock-Control-Token`), when one is needed. */
  controlToken?: string;
  /** Where the stateful mock keeps its state, as its start line says: `in memory`, `state file <file>`, or `store <URL>` (never its password). */
  store?: string;
  /** With `stateless`: resolves when a Prism process exits, for whatever reason (`close` included). */
  prismExited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startMock(options: MockOptions = {}): Promise<RunningMock> {
  return options.stateless ? startExampleServer(options) : startStatefulMock(options);
}

const toStderr = (line: string): void => void process.stderr.write(`${line}\n`);

async function startStatefulMock(options: MockOptions): Promise<RunningMock> {
  const host = options.host ?? DEFAULT_HOST;
  const warn = options.warn ?? toStderr;
  const document = loadOpenApi();
  let state: SimState | undefined;
  let lastSeq = 0;
  if (options.statePath && options.storeUrl) throw new StoreStartError('--state and --store are two places to keep the state: give one.');
  if (options.statePath) writableDirectory(path.dirname(path.resolve(options.statePath)), '--state', false);
  if (options.recordDir !== undefined) writableDirectory(options.recordDir, '--record', true);
  // An unreachable or misconfigured store is refused before anything starts (one line, exit 2).
  const redis = options.storeUrl ? await connectRedis(options.storeUrl, warn).catch((error: Error) => Promise.reject(new StoreStartError(error.message))) : undefined;
  // Whether this start begins from nothing (a snapshot given is then brought back).
  let fresh = true;
  if (redis) {
    const gen = (await redis.redis.get(`${redis.prefix}:gen`).catch(() => null)) ?? '0';
    fresh = (await redis.redis.scard(`${redis.prefix}:g${gen}:accts`).catch(() => 0)) === 0;
  }
  let kept: SnapshotFile[] = [];
  /** How much of the journal holds whole changes: what a refused first write must not cut away. */
  let journalBytes = 0;
  if (options.statePath) {
    kept = readSnapshotsBeside(options.statePath, warn);
    // What a killed run left half-written goes first; the file itself is checked before it is used.
    for (const name of removeStaleTemporaries(options.statePath)) warn(`--state: removed ${name}, left by a run that was killed while writing.`);
    let read: ReturnType<typeof readStateWithJournal>;
    try {
      read = readStateWithJournal(options.statePath, (candidate) => stateProblems(simContract(document), candidate));
    } catch (error) {
      throw new StoreStartError(`--state: ${(error as Error).message}`);
    }
    if (read?.tornBytes) warn(`--state: ignored the last ${read.tornBytes} bytes of ${options.statePath}.journal, a write cut short by a kill (never acknowledged).`);
    state = read?.state;
    lastSeq = read?.lastSeq ?? 0;
    journalBytes = read?.goodBytes ?? 0;
    fresh = state === undefined;
  }
  const controlDocument = readGeneratedJson('mock-control.json');
  // A recording names the descriptions at this mock's address (it serves them), known once it listens.
  let address = '';
  const mockUrl = (): string => address;
  const core = createMockCore({
    document,
    controlDocument,
    // The per-key switch gives documents naming the descriptions where this package has them.
    recording: { all: options.recordDir !== undefined, mockUrl },
    seed: options.seed,
    state,
    strictKeys: options.strictKeys,
    signupCode: options.signupCode,
    // With a shared store the accounts are the store's: no process evicts them.
    maxAccounts: redis ? Number.POSITIVE_INFINITY : options.maxAccounts,
    maxAccountBytes: options.maxAccountBytes,
    maxSnapshotBytes: options.maxSnapshotBytes,
    answerCheck: options.validateResponse ? 'header' : undefined,
    ...(options.gate === 'prism' ? { gate: await prismGate(defaultDocument()) } : {}),
    ...(options.statePath
      ? {
          store: (simulator: SimStorage) => fileStore(simulator, options.statePath!, { lastSeq, journalBytes, log: warn, snapshots: kept, keepSnapshot: snapshotsBeside(options.statePath!), maxSnapshotBytes: options.maxSnapshotBytes }),
        }
      : redis
        ? { store: (simulator: SimStorage) => redisStore(simulator, redis, { warn, maxSnapshotBytes: options.maxSnapshotBytes }) }
        : {}),
  });
  // Through the store, at start: the seed's named accounts, once whichever process starts first
  // (the run shows the simulator the store's view); the snapshot files given, kept under their
  // names, the last brought back on a fresh store.
  const last = options.snapshots?.at(-1);
  let doing = '';
  try {
    if (redis) await core.store.run({}, () => core.simulator.seedNamedAccounts());
    doing = '--snapshot: ';
    for (const file of options.snapshots ?? []) await core.store.snapshots.put(file);
    if (last && fresh) await core.store.snapshots.restore(last.snapshot);
  } catch (error) {
    core.stop();
    await core.store.close();
    throw new StoreStartError(`${doing}${(error as Error).message}`);
  }
  if (last && !fresh) warn(`--snapshot ${last.snapshot}: kept under its name; not brought back, as the store already holds state (POST /__mock/snapshots/${last.snapshot}/restore does).`);
  const recordings: RecordingFiles | undefined = options.recordDir !== undefined ? writeRecordings(core.recorder, options.recordDir, { document, controlDocument, mockUrl }, warn) : undefined;
  const webhooks = startWebhookDelivery({ simulator: core.simulator, store: core.store, log: options.log });
  const heap = guardHeap(core.simulator, warn);
  const stopWatching = core.simulator.onChange(() => heap.check());
  const stopEvictionLog = logEvictions(core.simulator, warn);
  const stopCore = async (): Promise<void> => {
    core.stop();
    const recorded = recordings?.stop();
    webhooks.stop();
    heap.stop();
    stopWatching();
    stopEvictionLog();
    // Whatever is not on disk (or in the shared store) yet goes there before the process ends.
    await Promise.all([recorded, core.store.close()]);
  };
  // The control surface is for this machine's programs; beyond loopback or with strict keys, for
  // whoever holds the token too (control-access.ts).
  const controlToken = options.controlToken ?? (options.strictKeys || !isLoopbackHost(host) ? newControlToken() : undefined);
  const control = controlAccess(host, controlToken);
  const listener = pipelineListener({ pipeline: core.pipeline, methodsAt: core.simulator.contract.methodsAt, log: options.log, control });
  const served = await serveHttp(listener, host, options.port ?? DEFAULT_PORT, options.timeouts).catch(async (error: Error) => {
    await stopCore();
    throw error;
  });
  // From this machine: a wildcard address is reached at loopback.
  address = host === '0.0.0.0' || host === '::' ? `http://127.0.0.1:${served.port}` : served.url;
  if (!isLoopbackHost(host)) {
    warn(`listening on ${host}, not only loopback: every machine that reaches this one can use the mock (any sk_live_ key${options.strictKeys ? ' the mock issued' : ''}); changes to its control surface need the control token.`);
  }
  let closing: Promise<void> | undefined;
  return {
    url: served.url,
    host,
    port: served.port,
    document: generatedPath('openapi.json'),
    ready: Promise.resolve({ operations: listOperations(document).length }),
    simulator: core.simulator,
    ...(controlToken !== undefined ? { controlToken } : {}),
    store: redis ? `store ${redis.url}` : options.statePath ? `state file ${options.statePath}` : 'in memory',
    // The core first: held long polls are answered before their connections end.
    close: () => (closing ??= Promise.all([stopCore().catch(() => undefined), served.close()]).then(() => undefined)),
  };
}

async function startExampleServer(options: MockOptions): Promise<RunningMock> {
  const host = options.host ?? DEFAULT_HOST;
  const document = path.resolve(options.document ?? defaultDocument());
  const pool = startPrismPool(
    { document, logLevel: options.prismLogLevel ?? 'silent', validateResponse: options.validateResponse ?? false },
    Math.max(1, options.prismWorkers ?? defaultPrismWorkers()),
    options.warn ?? toStderr,
  );
  const description = loadOpenApi();
  const contract = simContract(description);
  const prefix = keyPrefix(description);
  const responder = prismResponder({ contract, facts: operationFacts(description), upstreamPort: pool.upstreamPort, upstreamDown: pool.down });
  // The stateful mock's pipeline, without its control surface and gate: Prism judges and answers.
  const pipeline = createPipeline({ contract, acceptedKey: (authorization) => wellFormedKey(authorization, prefix), responder });
  const served = await serveHttp(pipelineListener({ pipeline, methodsAt: contract.methodsAt, log: options.log }), host, options.port ?? DEFAULT_PORT, options.timeouts).catch(async (error: Error) => {
    responder.close();
    await pool.stop();
    throw error;
  });
  let closing: Promise<void> | undefined;
  return {
    url: served.url,
    host,
    port: served.port,
    document,
    ready: pool.ready.then(({ prismVersion, operations, prismPort }) => ({ operations, prism: { version: prismVersion, port: prismPort } })),
    prismExited: pool.exited,
    close: () => (closing ??= Promise.all([served.close().then(() => responder.close()), pool.stop()]).then(() => undefined)),
  };
}
