// `numbers-api mock` (also `npm start` / `npm run mock`): serve the stateful mock (or, with
// `--stateless`, Prism's examples, then the rules), print the URL and one quiet line per request,
// stop cleanly on Ctrl-C/SIGTERM.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { parseArgs } from 'node:util';
import { processIo, type CliIo } from '../cli-io.js';
import { loadOpenApi } from '../contract/generated-files.js';
import { formatExampleNamesMarkdown, formatExampleNamesText, listExampleNames } from './example-names.js';
import { DEFAULT_HOST, DEFAULT_PORT, startMock, StoreStartError } from './start-mock.js';
import { CONTROL_TOKEN_HEADER } from './control-access.js';
import { parseSeed, type SeedFile } from '../simulator/seed.js';
import { simContract } from '../simulator/contract.js';
import { documentedSignupCode } from '../simulator/simulator.js';
import type { SnapshotFile } from '../store/store.js';
import { readSnapshotFile } from '../store/snapshot-files.js';
import { stateProblems } from '../store/state-schema.js';

/** Where the control token comes from when --control-token is not given. */
export const CONTROL_TOKEN_ENV = 'NUMBERS_API_CONTROL_TOKEN';
/** Where the store comes from when --store is not given. */
export const STORE_ENV = 'NUMBERS_API_MOCK_STORE';

/** The help text, with the sign-up code read from the contract's `signupCode` test value. */
export function mockUsage(): string {
  return MOCK_USAGE.replaceAll('{signupCode}', documentedSignupCode(simContract(loadOpenApi())));
}

const MOCK_USAGE = `Usage: numbers-api mock [options]

Serves a mock of the API that behaves like the service: every request is validated against the
bundled contract (with Prism's verdicts), then answered from per-account state that sign-up,
sends, calls, billing and time change (see the README, "Mock"). --stateless serves the documented
examples only, through Prism 5.14.2, as a plain example server.

  Authorization: Bearer sk_live_<anything>   every key is its own account, made from the demo seed
                                             on first use (only signed-up or seeded keys with
                                             --strict-keys); not needed on the four sign-up ones
  sign-up code                               {signupCode} for the email and SMS codes (--signup-code)
  test values                                documented inputs that reach what only a carrier or
                                             registry decides (--list-test-values prints them)
  Prefer: example=<name> | code=<status>     answers exactly that documented example; no state
  /__mock/reset, /__mock/clock/advance,      the control surface (generated/mock-control.json):
  /__mock/checkout/complete, /__mock/wallet  reset, move time, pay a checkout, set the wallet;
                                             from this machine, with Content-Type: application/json
                                             (and X-Mock-Control-Token when a token is printed)

Options:
  --port <n>              port to listen on (default: $PORT or ${DEFAULT_PORT})
  --host <address>        address to listen on (default: $HOST or ${DEFAULT_HOST})
  --stateless             serve the documented examples only, keeping no state
  --seed <file>           start every account from your own data (a JSON seed, see the README)
  --state <file>          keep the state in this file across restarts: a journal beside it holds
                          every change before it is answered, folded into the file now and then
  --store <url>           keep the state in Valkey/Redis (redis://host:port/db, rediss:// for TLS),
                          shared by every mock process given the same store: run several behind
                          a load balancer (README, "A mock a team hosts"); or set
                          NUMBERS_API_MOCK_STORE. The store must run with appendonly yes
  --snapshot <file>       a snapshot file (GET /__mock/snapshots/{name} gives one): kept under its
                          name, and brought back at start when the store holds no state yet
                          (repeatable; the last one is brought back)
  --record <dir>          record what each account does as an Arazzo workflow, one file per
                          account (<dir>/<name>.arazzo.json; the key is never written); replay
                          one with numbers-api conformance --replay or redocly respect
  --strict-keys           accept only keys the sign-up issued or the seed names
  --signup-code <code>    the right email and SMS code (default {signupCode}, 6 digits)
  --control-token <t>     the token changes on the control surface need (X-Mock-Control-Token);
                          without it, one is made up and printed under --strict-keys or on an
                          address other than loopback (or set NUMBERS_API_CONTROL_TOKEN)
  --max-accounts <n>      live accounts at most (default 10000); past it the least recently used
                          idle account is evicted, and the log says so
  --max-account-bytes <n> what one account may hold, as JSON (default 16777216, 16 MB); a request
                          body that would pass it is refused with the documented 400
  --gate <ajv|prism>      how requests are validated: ajv compiled from the contract (default) or
                          Prism's own validator in-process; both give Prism's verdicts
  --quiet                 no line per request
  --validate-response     also check every answer against its schema: the simulator's composed
                          answers, or Prism's examples (--stateless), reported in an sl-violations
                          header (off by default: it costs time per request)
  --document <file>       with --stateless: the description Prism serves
                          (default: generated/openapi.dereferenced.json)
  --prism-log <level>     with --stateless: Prism's own log: silent (default), error, warn, info, debug
  --prism-workers <n>     with --stateless: Prism processes sharing the requests (default: 2, or 1
                          on one core)
  --list-examples         print the example names per operation and status, then exit
  --list-test-values      print the documented test values (x-test-values), then exit
  --markdown | --json     with --list-examples: Markdown tables or JSON instead of text
  -h, --help              this help

Environment:
  NUMBERS_API_CONTROL_TOKEN    the control token, as --control-token
  NUMBERS_API_MOCK_STORE       the store, as --store
  NUMBERS_API_WEBHOOK_SECRET   sign webhook deliveries (HMAC-SHA256 hex of the raw body in
                               X-Service-Signature, as the local fan-out does; inferred, part 5.10)
  NUMBERS_API_MOCK_VALIDATE    strict | header: check every composed answer against the contract
`;

const GATES = ['ajv', 'prism'];

const PRISM_LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export class UsageError extends Error {}

/**
 * The stateful mock keeps bounded histories (500 messages and calls, 1,000 events per account),
 * so what it holds stays flat; but every record it drops was long-lived, and V8 lets the heap grow
 * up to about four times what is live before it collects them. In its own process the command
 * caps that growth at 1.5 times (about 0.01 ms more CPU per request): 100,000 sends over 100 keys
 * end under 300 MB instead of about 350 (scripts/bench/mock.mjs). Only the command does this: a
 * V8 flag is the whole process's, so `startMock` in someone else's process leaves it alone.
 */
function keepHeapNearLiveSize(): void {
  v8.setFlagsFromString('--heap-growing-percent=50');
}

function parsePort(value: string, source: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${source} must be a port number from 0 to 65535, got "${value}".`);
  }
  return Number(value);
}

function wholeNumber(flag: string, value: string, least: number): number {
  if (!/^\d+$/.test(value) || Number(value) < least || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be a whole number of at least ${least}, got "${value}".`);
  }
  return Number(value);
}

function parseMockArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      document: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      'prism-log': { type: 'string' },
      'validate-response': { type: 'boolean', default: false },
      'prism-workers': { type: 'string' },
      'list-examples': { type: 'boolean', default: false },
      'list-test-values': { type: 'boolean', default: false },
      stateless: { type: 'boolean', default: false },
      seed: { type: 'string' },
      state: { type: 'string' },
      store: { type: 'string' },
      snapshot: { type: 'string', multiple: true },
      record: { type: 'string' },
      'strict-keys': { type: 'boolean', default: false },
      gate: { type: 'string' },
      'signup-code': { type: 'string' },
      'max-accounts': { type: 'string' },
      'control-token': { type: 'string' },
      'max-account-bytes': { type: 'string' },
      markdown: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const prismLog = values['prism-log'] ?? 'silent';
  if (!PRISM_LOG_LEVELS.includes(prismLog)) {
    throw new UsageError(`--prism-log must be one of ${PRISM_LOG_LEVELS.join(', ')}, got "${prismLog}".`);
  }
  if ((values.markdown || values.json) && !values['list-examples']) {
    throw new UsageError('--markdown and --json go with --list-examples.');
  }
  const port =
    values.port !== undefined
      ? parsePort(values.port, '--port')
      : process.env.PORT
        ? parsePort(process.env.PORT, 'PORT')
        : DEFAULT_PORT;
  const host = values.host ?? (process.env.HOST || DEFAULT_HOST);
  const workers = values['prism-workers'];
  if (workers !== undefined && (!/^\d+$/.test(workers) || Number(workers) < 1 || Number(workers) > 16)) {
    throw new UsageError(`--prism-workers must be a whole number from 1 to 16, got "${workers}".`);
  }
  if (host.trim() === '') throw new UsageError('--host must not be empty.');
  const signupCode = values['signup-code'];
  if (signupCode !== undefined && !/^\d{6}$/.test(signupCode)) {
    throw new UsageError(`--signup-code must be 6 digits (part 8), got "${signupCode}".`);
  }
  const controlToken = values['control-token'] ?? (process.env[CONTROL_TOKEN_ENV] || undefined);
  if (controlToken !== undefined && !/^[\x21-\x7e]{8,200}$/.test(controlToken)) {
    throw new UsageError('--control-token must be 8 to 200 visible ASCII characters (it is sent in a header).');
  }
  const store = values.store ?? (process.env[STORE_ENV] || undefined);
  if (store !== undefined && !/^rediss?:\/\/[^\s]+$/.test(store)) {
    throw new UsageError(`--store must be a redis:// or rediss:// URL (redis://host:port/db), got "${store}".`);
  }
  if (store !== undefined && values.state !== undefined) throw new UsageError('--state and --store are two places to keep the state: give one.');
  if (store !== undefined && values.stateless) throw new UsageError('--store goes with the stateful mock, not --stateless.');
  if (values.snapshot !== undefined && values.stateless) throw new UsageError('--snapshot goes with the stateful mock, not --stateless.');
  if (store !== undefined && values['max-accounts'] !== undefined) throw new UsageError('--max-accounts goes with the memory and file stores: with --store the accounts are the store\'s, kept until deleted or reset.');
  const maxAccounts = values['max-accounts'] === undefined ? undefined : wholeNumber('--max-accounts', values['max-accounts'], 1);
  const maxAccountBytes = values['max-account-bytes'] === undefined ? undefined : wholeNumber('--max-account-bytes', values['max-account-bytes'], 1024);
  if (values.record !== undefined && values.record.trim() === '') throw new UsageError('--record needs a directory.');
  if (values.stateless && (values.record !== undefined || values.seed !== undefined || values.state !== undefined || values['strict-keys'] || signupCode !== undefined || maxAccounts !== undefined || maxAccountBytes !== undefined || values['control-token'] !== undefined)) {
    throw new UsageError('--record, --seed, --state, --strict-keys, --signup-code, --control-token, --max-accounts and --max-account-bytes go with the stateful mock, not --stateless.');
  }
  if (values.gate !== undefined && !GATES.includes(values.gate)) {
    throw new UsageError(`--gate must be one of ${GATES.join(', ')}, got "${values.gate}".`);
  }
  if (values.stateless && values.gate !== undefined) throw new UsageError('--gate goes with the stateful mock: --stateless is Prism itself.');
  if (!values.stateless && (values.document !== undefined || values['prism-log'] !== undefined || workers !== undefined)) {
    throw new UsageError('--document, --prism-log and --prism-workers go with --stateless: the stateful mock runs no Prism process.');
  }
  return { ...values, port, host, prismLog, maxAccounts, maxAccountBytes, controlToken, store, prismWorkers: workers === undefined ? undefined : Number(workers) };
}

/** Resolves with the exit code: 0 after a clean stop, 1 when the mock failed, 2 on bad usage. */
export async function runMockCli(argv: string[], io: CliIo = processIo): Promise<number> {
  let args: ReturnType<typeof parseMockArgs>;
  try {
    args = parseMockArgs(argv);
  } catch (error) {
    io.stderr(`numbers-api mock: ${(error as Error).message}\n\n${mockUsage()}`);
    return 2;
  }
  if (args.help) {
    io.stdout(mockUsage());
    return 0;
  }
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

  let seed: SeedFile | undefined;
  if (args.seed !== undefined) {
    try {
      seed = parseSeed(readFileSync(args.seed, 'utf8'), args.seed);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `--seed ${args.seed} does not exist.` : (error as Error).message;
      io.stderr(`numbers-api mock: ${reason}\n`);
      return 2;
    }
  }

  let snapshots: SnapshotFile[] | undefined;
  if (args.snapshot !== undefined) {
    try {
      const contract = simContract(loadOpenApi());
      snapshots = args.snapshot.map((file) => readSnapshotFile(file, (state) => stateProblems(contract, state)));
    } catch (error) {
      io.stderr(`numbers-api mock: --snapshot ${(error as Error).message}\n`);
      return 2;
    }
  }

  const started = Date.now();
  if (!args.stateless) keepHeapNearLiveSize();
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
      gate: args.gate as 'ajv' | 'prism' | undefined,
      signupCode: args['signup-code'],
      maxAccounts: args.maxAccounts,
      maxAccountBytes: args.maxAccountBytes,
      controlToken: args.stateless ? undefined : args.controlToken,
      host: args.host,
      port: args.port,
      document: args.document,
      prismLogLevel: args.prismLog,
      validateResponse: args['validate-response'],
      prismWorkers: args.prismWorkers,
      log: args.quiet ? undefined : (line) => io.stdout(`${line}\n`),
      warn: (line) => io.stderr(`numbers-api mock: ${line}\n`),
    });
  } catch (error) {
    if (error instanceof StoreStartError) {
      io.stderr(`numbers-api mock: ${error.message}\n`);
      return 2;
    }
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

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (code: number): void => {
      if (finished) return;
      finished = true;
      clearInterval(orphanWatch);
      // The signal handlers stay until the mock is closed: a second Ctrl-C (or the group's SIGINT
      // coming after Prism was seen gone) must not kill this process half-way through stopping.
      void mock.close().then(() => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolve(code);
      });
    };
    const what = mock.prismExited ? 'the mock and Prism' : 'the mock';
    const onSignal = (signal: NodeJS.Signals): void => {
      if (finished) return;
      io.stdout(`\n${signal}: stopping ${what}.\n`);
      finish(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Announced only once the handlers are in: a Ctrl-C right after the line stops cleanly.
    if (mock.prismExited) io.stdout(`Mock listening on ${mock.url} (starting Prism on ${path.relative(process.cwd(), mock.document) || mock.document})\n`);
    // Started through a wrapper (`npx`, `npm exec`, a shell) that is killed without passing the
    // signal on, this process is re-parented: it stops then, with its Prism processes, instead
    // of running on with nobody to stop it.
    const parent = process.ppid;
    const orphanWatch = setInterval(() => {
      if (process.ppid !== parent) {
        io.stdout(`\nThe process that started the mock (pid ${parent}) is gone: stopping ${what}.\n`);
        finish(0);
      }
    }, 250);
    orphanWatch.unref();

    mock.ready.then(
      ({ prism, operations }) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        io.stdout(
          `Mock ready on ${mock.url} in ${seconds} s (${prism ? `Prism ${prism.version}, ` : ''}${operations} operations, ${mock.simulator ? 'stateful' : 'stateless: examples only'}).\n` +
            (mock.simulator
              ? `  Each key (Authorization: Bearer sk_live_<anything>${mock.simulator.options.strictKeys ? ', signed-up or seeded only' : ''}) is its own account; sign-up code ${mock.simulator.options.signupCode}.\n` +
                `  Control: POST ${mock.url}/__mock/reset, /__mock/clock/advance with Content-Type: application/json` +
                (mock.controlToken ? ` and ${CONTROL_TOKEN_HEADER}: ${mock.controlToken}` : '') +
                '. Ctrl-C stops.\n'
              : `  Send Authorization: Bearer sk_live_<anything>. Prefer: code=<status>, example=<name> picks a documented answer\n` +
                `  (numbers-api mock --list-examples lists them). Ctrl-C stops.\n`),
        );
      },
      (error: Error) => {
        if (finished) return; // stopped while Prism was starting: not a failure to start
        io.stderr(`numbers-api mock: ${error.message}\n`);
        finish(1);
      },
    );
    void mock.prismExited?.then(({ code, signal }) => {
      if (finished) return;
      // Ctrl-C signals the whole process group: a Prism still loading (before its own handler is
      // installed) dies of it, and may be seen gone before this process handles its own SIGINT.
      // That is a stop, not a failure.
      if (signal === 'SIGINT') return onSignal(signal);
      io.stderr(`numbers-api mock: Prism stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping.\n`);
      finish(1);
    });
  });
}
