// `numbers-api mock` (also `npm start` / `npm run mock`): serve the stateful mock (or, with
// `--stateless`, Prism's examples, then the rules), print the URL and one quiet line per request,
// stop cleanly on Ctrl-C/SIGTERM.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runCommand } from '../cli/command.js';
import { batchedLines, processIo, type CliIo } from '../cli/io.js';
import { SHARED, type Parsed } from '../cli/options.js';
import { untilSignal } from '../cli/run-until-signal.js';
import { UsageError } from '../cli/usage-error.js';
import { oneOf, port, token, wholeNumber } from '../cli/validators.js';
import { loadOpenApi } from '../contract/generated-files.js';
import { formatExampleNamesMarkdown, formatExampleNamesText, listExampleNames } from './example-names.js';
import { DEFAULT_HOST, DEFAULT_PORT, startMock, StoreStartError } from './start-mock.js';
import { CONTROL_TOKEN_HEADER } from '../delivery/control-paths.js';
import { parseSeed, type SeedFile } from '../simulator/seed.js';
import { simContract } from '../simulator/contract.js';
import { documentedSignupCode } from '../simulator/simulator.js';
import type { SnapshotFile } from '../store/store.js';
import { readSnapshotFile } from '../store/snapshot-files.js';
import { stateProblems } from '../store/state-schema.js';

function mockOptions(signupCode: string) {
  return {
    port: { ...SHARED.port, env: 'PORT', help: `the port to listen on (default ${DEFAULT_PORT})` },
    host: { ...SHARED.host, env: 'HOST', help: `the address to listen on (default ${DEFAULT_HOST})` },
    stateless: { type: 'boolean', help: 'serve the documented examples only, keeping no state' },
    seed: { type: 'string', value: '<file>', help: 'start every account from your own data (a JSON seed: docs/guides/mock.md)' },
    state: { type: 'string', value: '<file>', help: 'keep the state in this file across restarts: a journal beside it holds every change before it is answered, folded into the file now and then' },
    store: { type: 'string', value: '<url>', env: 'NUMBERS_API_MOCK_STORE', help: 'keep the state in Valkey/Redis (redis://host:port/db, rediss:// for TLS), shared by every mock process given the same store: run several behind a load balancer (docs/guides/hosting.md). The store must run with appendonly yes' },
    snapshot: { type: 'string', value: '<file>', multiple: true, help: 'a snapshot file (GET /__mock/snapshots/{name} gives one): kept under its name, and brought back at start when the store holds no state yet (repeatable; the last one is brought back)' },
    record: { type: 'string', value: '<dir>', help: 'record what each account does as an Arazzo workflow, one file per account (<dir>/<name>.arazzo.json; the key is never written); replay one with numbers-api conformance --replay or redocly respect' },
    'strict-keys': { type: 'boolean', help: 'accept only keys the sign-up issued or the seed names' },
    'signup-code': { type: 'string', value: '<code>', help: `the right email and SMS code (default ${signupCode}, 6 digits)` },
    'control-token': { ...SHARED['control-token'], help: 'the token changes on the control surface need (X-Mock-Control-Token); without it, one is made up and printed under --strict-keys or on an address other than loopback' },
    'max-accounts': { type: 'string', value: '<n>', help: 'live accounts at most (default 10000); past it the least recently used idle account is evicted, and the log counts them' },
    'max-account-bytes': { type: 'string', value: '<n>', help: 'what one account may hold, as JSON (default 16777216, 16 MB); a request body that would pass it is refused with the documented 400' },
    'max-snapshot-bytes': { type: 'string', value: '<n>', help: 'what all named snapshots may hold together, as JSON (default 67108864, 64 MiB); a snapshot past it is refused with 409 naming what to delete' },
    gate: { type: 'string', value: '<ajv|prism>', help: "how requests are validated: ajv compiled from the contract (default) or Prism's own validator in-process; both give Prism's verdicts" },
    quiet: SHARED.quiet,
    'validate-response': { type: 'boolean', help: "also check every answer against its schema: the simulator's composed answers, or Prism's examples (--stateless), reported in an sl-violations header (off by default: it costs time per request)" },
    document: { type: 'string', value: '<file>', help: 'with --stateless: the description Prism serves (default: generated/openapi.dereferenced.json)' },
    'prism-log': { type: 'string', value: '<level>', help: "with --stateless: Prism's own log: silent (default), error, warn, info, debug" },
    'prism-workers': { type: 'string', value: '<n>', help: 'with --stateless: Prism processes sharing the requests (default: 2, or 1 on one core)' },
    'list-examples': { type: 'boolean', help: 'print the example names per operation and status, then exit' },
    'list-test-values': { type: 'boolean', help: 'print the documented test values (x-test-values), then exit' },
    markdown: { type: 'boolean', help: 'with --list-examples: Markdown tables instead of text' },
    json: { type: 'boolean', help: 'with --list-examples: JSON instead of text' },
  } as const;
}

/** The command, with the sign-up code read from the contract's `signupCode` test value. */
export function mockCommand() {
  const signupCode = documentedSignupCode(simContract(loadOpenApi()));
  return {
    name: 'numbers-api mock',
    usage: '[options]',
    about: `Serves a mock of the API that behaves like the service: every request is validated against the
bundled contract (with Prism's verdicts), then answered from per-account state that sign-up,
sends, calls, billing and time change (docs/guides/mock.md). --stateless serves the documented
examples only, through Prism 5.14.2, as a plain example server.

  Authorization: Bearer sk_live_<anything>   every key is its own account, made from the demo seed
                                             on first use (only signed-up or seeded keys with
                                             --strict-keys); not needed on the four sign-up ones
  sign-up code                               ${signupCode} for the email and SMS codes (--signup-code)
  test values                                documented inputs that reach what only a carrier or
                                             registry decides (--list-test-values prints them)
  Prefer: example=<name> | code=<status>     answers exactly that documented example; no state
  /__mock/reset, /__mock/clock/advance,      the control surface (generated/mock-control.json):
  /__mock/checkout/complete, /__mock/wallet  reset, move time, pay a checkout, set the wallet;
                                             from this machine, with Content-Type: application/json
                                             (and X-Mock-Control-Token when a token is printed)`,
    options: mockOptions(signupCode),
    notes: `Environment without a flag:
  NUMBERS_API_WEBHOOK_SECRET   sign webhook deliveries (HMAC-SHA256 hex of the raw body in
                               X-Service-Signature, as the local fan-out does; inferred, part 5.10)
  NUMBERS_API_MOCK_VALIDATE    strict | header: check every composed answer against the contract`,
  };
}

const GATES = ['ajv', 'prism'] as const;

const PRISM_LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** What only the stateful mock has: --stateless is Prism itself, serving the examples and keeping no state. */
const STATEFUL_ONLY = ['store', 'snapshot', 'record', 'seed', 'state', 'strict-keys', 'signup-code', 'control-token', 'max-accounts', 'max-account-bytes', 'max-snapshot-bytes', 'gate'] as const;

function mockSettings({ values, from }: Parsed<ReturnType<typeof mockOptions>>) {
  const prismLog = oneOf(values['prism-log'] ?? 'silent', '--prism-log', PRISM_LOG_LEVELS);
  if ((values.markdown || values.json) && !values['list-examples']) throw new UsageError('--markdown and --json go with --list-examples.');
  const listenPort = values.port === undefined ? DEFAULT_PORT : port(values.port, from('port'));
  const host = values.host ?? DEFAULT_HOST;
  const workers = values['prism-workers'] === undefined ? undefined : wholeNumber(values['prism-workers'], '--prism-workers', 1, 16);
  if (host.trim() === '') throw new UsageError('--host must not be empty.');
  const signupCode = values['signup-code'];
  if (signupCode !== undefined && !/^\d{6}$/.test(signupCode)) throw new UsageError(`--signup-code must be 6 digits (part 8), got "${signupCode}".`);
  // The environment's token is the stateful mock's; only the flag is refused beside --stateless.
  const statefulOnly = STATEFUL_ONLY.find((name) => values[name] !== undefined && (name !== 'control-token' || from(name).startsWith('--')));
  if (values.stateless && statefulOnly) throw new UsageError(`--${statefulOnly} goes with the stateful mock, not --stateless.`);
  const controlToken = values['control-token'] === undefined ? undefined : token(values['control-token'], from('control-token'));
  const store = values.store;
  if (store !== undefined && !/^rediss?:\/\/[^\s]+$/.test(store)) throw new UsageError(`${from('store')} must be a redis:// or rediss:// URL (redis://host:port/db), got "${store}".`);
  if (store !== undefined && values.state !== undefined) throw new UsageError('--state and --store are two places to keep the state: give one.');
  if (store !== undefined && values['max-accounts'] !== undefined) throw new UsageError('--max-accounts goes with the memory and file stores: with --store the accounts are the store\'s, kept until deleted or reset.');
  const maxAccounts = values['max-accounts'] === undefined ? undefined : wholeNumber(values['max-accounts'], '--max-accounts', 1);
  const maxAccountBytes = values['max-account-bytes'] === undefined ? undefined : wholeNumber(values['max-account-bytes'], '--max-account-bytes', 1024);
  const maxSnapshotBytes = values['max-snapshot-bytes'] === undefined ? undefined : wholeNumber(values['max-snapshot-bytes'], '--max-snapshot-bytes', 1024);
  if (values.record !== undefined && values.record.trim() === '') throw new UsageError('--record needs a directory.');
  const gate = values.gate === undefined ? undefined : oneOf(values.gate, '--gate', GATES);
  if (!values.stateless && (values.document !== undefined || values['prism-log'] !== undefined || workers !== undefined)) {
    throw new UsageError('--document, --prism-log and --prism-workers go with --stateless: the stateful mock runs no Prism process.');
  }
  return { ...values, port: listenPort, host, gate, prismLog, maxAccounts, maxAccountBytes, maxSnapshotBytes, controlToken, store, prismWorkers: workers };
}

/** Resolves with the exit code: 0 after a clean stop, 1 when the mock failed, 2 on bad usage. */
export async function runMockCli(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand(mockCommand(), argv, io, (parsed) => serve(mockSettings(parsed), io));
}

async function serve(args: ReturnType<typeof mockSettings>, io: CliIo): Promise<number> {
  if (args['list-test-values']) {
    for (const entry of simContract(loadOpenApi()).testValues()) {
      const answer = entry.status ? `${entry.status} ${entry.example ?? ''}`.trim() : 'accepted';
      io.stdout(`${entry.value}  ${entry.field} on ${entry.operations.join(', ')} -> ${answer}\n    ${entry.description}\n`);
    }
    return 0;
  }
  if (args['list-examples']) {
    const operations = listExampleNames(loadOpenApi());
    if (args.json) io.stdout(`${JSON.stringify(operations, null, 2)}\n`);
    else if (args.markdown) io.stdout(formatExampleNamesMarkdown(operations));
    else io.stdout(formatExampleNamesText(operations));
    return 0;
  }

  // A file named on the command line that cannot be used is refused as bad usage is: one line, exit 2.
  let seed: SeedFile | undefined;
  if (args.seed !== undefined) {
    try {
      seed = parseSeed(readFileSync(args.seed, 'utf8'), args.seed);
    } catch (error) {
      throw new UsageError((error as NodeJS.ErrnoException).code === 'ENOENT' ? `--seed ${args.seed} does not exist.` : (error as Error).message);
    }
  }

  let snapshots: SnapshotFile[] | undefined;
  if (args.snapshot !== undefined) {
    try {
      const contract = simContract(loadOpenApi());
      snapshots = args.snapshot.map((file) => readSnapshotFile(file, (state) => stateProblems(contract, state)));
    } catch (error) {
      throw new UsageError(`--snapshot ${(error as Error).message}`);
    }
  }

  const started = Date.now();
  // The stateful mock keeps bounded histories (500 messages and calls, 1,000 events per account),
  // so what it holds stays flat; but every record it drops was long-lived, and V8 lets the heap grow
  // up to about four times what is live before it collects them. In its own process the command
  // caps that growth at 1.5 times (about 0.01 ms more CPU per request): 100,000 sends over 100 keys
  // end under 300 MB instead of about 350 (scripts/bench/mock.mjs). Only the command does this: a
  // V8 flag is the whole process's, so `startMock` in someone else's process leaves it alone.
  if (!args.stateless) v8.setFlagsFromString('--heap-growing-percent=50');
  // The request log, a write a turn of the event loop; the command's own lines come after what it logged.
  const requestLog = args.quiet ? undefined : batchedLines(io.stdout);
  const say = (text: string): void => {
    requestLog?.flush();
    io.stdout(text);
  };
  let mock: Awaited<ReturnType<typeof startMock>>;
  try {
    mock = await startMock({
      stateless: args.stateless,
      seed,
      statePath: args.state,
      storeUrl: args.store,
      snapshots,
      recordDir: args.record,
      strictKeys: args['strict-keys'],
      gate: args.gate,
      signupCode: args['signup-code'],
      maxAccounts: args.maxAccounts,
      maxAccountBytes: args.maxAccountBytes,
      maxSnapshotBytes: args.maxSnapshotBytes,
      controlToken: args.stateless ? undefined : args.controlToken,
      host: args.host,
      port: args.port,
      document: args.document,
      prismLogLevel: args.prismLog,
      validateResponse: args['validate-response'],
      prismWorkers: args.prismWorkers,
      ...(requestLog ? { log: requestLog.line } : {}),
      warn: (line) => io.stderr(`numbers-api mock: ${line}\n`),
    });
  } catch (error) {
    if (error instanceof StoreStartError) throw new UsageError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `${args.host}:${args.port} is already in use; choose another with --port or PORT.`
        : code === 'EADDRNOTAVAIL'
          ? `${args.host} is not an address of this machine; choose another with --host or HOST.`
          : (error as Error).message;
    io.stderr(`numbers-api mock: ${reason}\n`);
    return 1;
  }

  // Stopped by a signal, or by the mock itself with its exit code (a wrapper gone, Prism failing).
  const stop = untilSignal<number>();
  const what = mock.prismExited ? 'the mock and Prism' : 'the mock';
  const finish = (code: number, line: () => void): void => {
    if (stop.stop(code)) line();
  };
  // Announced only once the handlers are in: a Ctrl-C right after the line stops cleanly.
  if (mock.prismExited) say(`Mock listening on ${mock.url} (starting Prism on ${path.relative(process.cwd(), mock.document) || mock.document})\n`);
  // Started through a wrapper (`npx`, `npm exec`, a shell) that is killed without passing the
  // signal on, this process is re-parented: it stops then, with its Prism processes, instead
  // of running on with nobody to stop it.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) finish(0, () => say(`\nThe process that started the mock (pid ${parent}) is gone: stopping ${what}.\n`));
  }, 250);
  orphanWatch.unref();
  const stopped = stop.stopped.then(async (reason) => {
    clearInterval(orphanWatch);
    if (typeof reason === 'string') say(`\n${reason}: stopping ${what}.\n`);
    await mock.close();
    requestLog?.flush();
    stop.release();
    return typeof reason === 'string' ? 0 : reason;
  });

  mock.ready.then(
    ({ prism, operations }) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      say(
        `Mock ready on ${mock.url} in ${seconds} s (${prism ? `Prism ${prism.version}, ` : ''}${operations} operations, ${mock.simulator ? `stateful, ${mock.store}` : 'stateless: examples only'}).\n` +
          (mock.simulator
            ? `  Each key (Authorization: Bearer sk_live_<anything>${mock.simulator.options.strictKeys ? ', signed-up or seeded only' : ''}) is its own account; sign-up code ${mock.simulator.options.signupCode}.\n` +
              `  Control: POST ${mock.url}/__mock/reset, /__mock/clock/advance with Content-Type: application/json` +
              (mock.controlToken ? ` and ${CONTROL_TOKEN_HEADER}: ${mock.controlToken}` : '') +
              '. Ctrl-C stops.\n'
            : `  Send Authorization: Bearer sk_live_<anything>. Prefer: code=<status>, example=<name> picks a documented answer\n` +
              `  (numbers-api mock --list-examples lists them). Ctrl-C stops.\n`),
      );
    },
    // Stopped while Prism was starting is not a failure to start.
    (error: Error) => finish(1, () => io.stderr(`numbers-api mock: ${error.message}\n`)),
  );
  void mock.prismExited?.then(({ code, signal }) => {
    // Ctrl-C signals the whole process group: a Prism still loading (before its own handler is
    // installed) dies of it, and may be seen gone before this process handles its own SIGINT.
    // That is a stop, not a failure.
    if (signal === 'SIGINT') stop.stop(signal);
    else finish(1, () => io.stderr(`numbers-api mock: Prism stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping.\n`));
  });
  return stopped;
}
