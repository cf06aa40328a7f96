// `numbers-api mock` (also `npm start` / `npm run mock`): serve the bundled contract with Prism
// behind the front, print the URL and one quiet line per request, stop cleanly on Ctrl-C/SIGTERM.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadOpenApi } from './description.js';
import { formatExampleNamesMarkdown, formatExampleNamesText, listExampleNames } from './example-names.js';
import { DEFAULT_HOST, DEFAULT_PORT, startMock } from './start-mock.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export const MOCK_USAGE = `Usage: numbers-api mock [options]

Serves a mock of the API (Prism 5.14.2 on the bundled contract) for building a frontend without a
live account. Every operation answers its documented status with its documented example, and
keeps the rules an example cannot show: an id the examples do not use gets 404, usage follows
\`days\`, billing activity follows \`limit\` and \`starting_after\` (see the README). A request
naming \`code=\` or \`example=\` in \`Prefer\` gets exactly that.

  Authorization: Bearer sk_live_<anything>   needed on every operation but the four sign-up ones
  Prefer: example=<name>                     pick a documented success example
  Prefer: code=402                           pick a documented status (with example=<name> to pick one)

Options:
  --port <n>              port to listen on (default: $PORT or ${DEFAULT_PORT})
  --host <address>        address to listen on (default: $HOST or ${DEFAULT_HOST})
  --document <file>       description to serve (default: generated/openapi.dereferenced.json)
  --quiet                 no line per request
  --prism-log <level>     Prism's own log: silent (default), error, warn, info, debug
  --prism-workers <n>     Prism processes sharing the requests (default: 2, or 1 on one core)
  --validate-response     have Prism also check its own answers against their schemas (off by
                          default: the contract tests check every example already, and it costs
                          about a third of Prism's time per request)
  --list-examples         print the example names per operation and status, then exit
  --markdown | --json     with --list-examples: Markdown tables or JSON instead of text
  -h, --help              this help
`;

const PRISM_LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export class UsageError extends Error {}

function parsePort(value: string, source: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${source} must be a port number from 0 to 65535, got "${value}".`);
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
  return { ...values, port, host, prismLog, prismWorkers: workers === undefined ? undefined : Number(workers) };
}

/** Resolves with the exit code: 0 after a clean stop, 1 when the mock failed, 2 on bad usage. */
export async function runMockCli(argv: string[], io: CliIo = processIo): Promise<number> {
  let args: ReturnType<typeof parseMockArgs>;
  try {
    args = parseMockArgs(argv);
  } catch (error) {
    io.stderr(`numbers-api mock: ${(error as Error).message}\n\n${MOCK_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(MOCK_USAGE);
    return 0;
  }
  if (args['list-examples']) {
    const operations = listExampleNames(loadOpenApi());
    if (args.json) io.stdout(`${JSON.stringify(operations, null, 2)}\n`);
    else if (args.markdown) io.stdout(formatExampleNamesMarkdown(operations));
    else io.stdout(formatExampleNamesText(operations));
    return 0;
  }

  const started = Date.now();
  let mock: Awaited<ReturnType<typeof startMock>>;
  try {
    mock = await startMock({
      host: args.host,
      port: args.port,
      document: args.document,
      prismLogLevel: args.prismLog,
      validateResponse: args['validate-response'],
      prismWorkers: args.prismWorkers,
      log: args.quiet ? undefined : (line) => io.stdout(`${line}\n`),
    });
  } catch (error) {
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

  io.stdout(`Mock listening on ${mock.url} (starting Prism on ${path.relative(process.cwd(), mock.document) || mock.document})\n`);

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (code: number): void => {
      if (finished) return;
      finished = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void mock.close().then(() => resolve(code));
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      io.stdout(`\n${signal}: stopping the mock and Prism.\n`);
      finish(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    mock.ready.then(
      ({ prismVersion, operations }) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        io.stdout(
          `Mock ready on ${mock.url} in ${seconds} s (Prism ${prismVersion}, ${operations} operations).\n` +
            `  Send Authorization: Bearer sk_live_<anything>. Prefer: code=<status>, example=<name> picks a documented answer\n` +
            `  (numbers-api mock --list-examples lists them). Ctrl-C stops.\n`,
        );
      },
      (error: Error) => {
        io.stderr(`numbers-api mock: ${error.message}\n`);
        finish(1);
      },
    );
    void mock.prismExited.then(({ code, signal }) => {
      if (finished) return;
      io.stderr(`numbers-api mock: Prism stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping.\n`);
      finish(1);
    });
  });
}
