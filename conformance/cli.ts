// `numbers-api conformance ...` and `numbers-api proxy ...` (src/cli.ts dispatches here), and
// `npm run conformance -- ...`. Exit codes: 0 every required check passed, 1 a check failed,
// 2 usage error.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configFromEnv, parseBaseUrl, UsageError } from './config.js';
import { loadDescription } from './description.js';
import { planScenarios } from './plan.js';
import { networkCause } from './http.js';
import { runProxy } from './proxy.js';
import { redact } from './redact.js';
import { ConformanceReporter } from './reporters/conformance-reporter.js';

export const USAGE = `Usage:
  numbers-api conformance [options]      test a deployment against the contract
  numbers-api proxy --base-url <url>     validating proxy in front of a deployment
  (in the repository: npm run conformance -- [options])

Options:
  --base-url <url>        the deployment (or CONFORMANCE_BASE_URL)
  --api-key <key>         the API key (or CONFORMANCE_API_KEY; the environment keeps it out of
                          shell history). It never appears in any output or report.
  --level <level>         contract (default): reads and requests that must be rejected only;
                          writes: also sends a message and places a call (needs --to)
  --to <E.164>            the test number that --level writes messages and calls
  --concurrency <n>       requests in flight at once (default 4)
  --timeout <seconds>     per request (default 30)
  --retry-budget <sec>    how long a request may wait out 429s before its check is skipped (default 60)
  --report-dir <dir>      where conformance-report.json and junit.xml go (default ./conformance-report)
  -t, --filter <pattern>  only scenarios whose name matches (vitest -t), e.g. -t getUsage
  --shard <i>/<n>         run one shard of the suite (vitest --shard)
  --description <file>    the OpenAPI description (default: the package's generated/openapi.json)
  --verbose               also list passing scenarios and every finding
  --any-key-valid         the deployment accepts any well-formed key (a mock without accounts,
                          such as numbers-api mock): skip the unknown-key 401 checks
  --proxy                 start the validating proxy instead of the suite
  --port <n>              proxy port (default 4010)
  --host <host>           proxy host (default 127.0.0.1)
  --errors                proxy: answer a contract violation with an error instead of logging it
  -h, --help              this text

Exit codes: 0 all required checks passed, 1 a check failed, 2 usage error.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  level: { type: 'string' },
  to: { type: 'string' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  'retry-budget': { type: 'string' },
  'report-dir': { type: 'string' },
  filter: { type: 'string', short: 't' },
  shard: { type: 'string' },
  description: { type: 'string' },
  verbose: { type: 'boolean' },
  'any-key-valid': { type: 'boolean' },
  proxy: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  errors: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const suiteConfig = path.join(path.dirname(fileURLToPath(import.meta.url)), 'suite', `vitest.config${path.extname(fileURLToPath(import.meta.url))}`);

/** Filters a stream so the key cannot reach it, whatever prints (vitest, Prism, a stack trace). */
function guardStream(stream: NodeJS.WriteStream, secret: string): () => void {
  const original = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk;
    return (original as (...a: unknown[]) => boolean)(typeof text === 'string' ? redact(text, [secret]) : text, ...rest);
  }) as typeof stream.write;
  return () => {
    stream.write = original as typeof stream.write;
  };
}

export async function runConformanceCli(argv: string[]): Promise<number> {
  let args = [...argv];
  let mode: 'suite' | 'proxy' = 'suite';
  if (args[0] === 'conformance') args = args.slice(1);
  else if (args[0] === 'proxy') {
    mode = 'proxy';
    args = args.slice(1);
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    process.stderr.write(`${(error as Error).message.replace(/\. To specify a positional.*$/s, '.')}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.proxy) mode = 'proxy';
  const env = process.env;
  const secret = (values['api-key'] as string | undefined) ?? env.CONFORMANCE_API_KEY ?? '';
  const restoreOut = guardStream(process.stdout, secret);
  const restoreErr = guardStream(process.stderr, secret);
  try {
    if (mode === 'proxy') return await proxyMode(values);
    return await suiteMode(values);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\nRun with --help for the options.\n`);
      return 2;
    }
    process.stderr.write(`${redact(String((error as Error)?.stack ?? error), [secret])}\n`);
    return 1;
  } finally {
    restoreOut();
    restoreErr();
  }
}

/** A base URL that does not answer at all is bad input, said once, not ~100 failed checks. */
async function assertReachable(baseUrl: string, timeoutMs: number): Promise<void> {
  try {
    const response = await fetch(baseUrl, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(Math.min(timeoutMs, 15_000)) });
    await response.body?.cancel();
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'no answer in time' : networkCause(error);
    throw new UsageError(`Cannot reach ${baseUrl} (${why}). Check --base-url.`);
  }
}

async function proxyMode(values: Record<string, string | boolean | undefined>): Promise<number> {
  const upstream = parseBaseUrl((values['base-url'] as string | undefined) ?? process.env.CONFORMANCE_BASE_URL);
  const port = Number(values.port ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${values.port}".`);
  return runProxy({ upstream, port, host: (values.host as string | undefined) ?? '127.0.0.1', errors: values.errors === true, descriptionPath: values.description as string | undefined });
}

async function suiteMode(values: Record<string, string | boolean | undefined>): Promise<number> {
  // Flags become CONFORMANCE_* variables: the vitest workers read the same settings.
  const mapping: [string, string][] = [
    ['base-url', 'CONFORMANCE_BASE_URL'],
    ['api-key', 'CONFORMANCE_API_KEY'],
    ['level', 'CONFORMANCE_LEVEL'],
    ['to', 'CONFORMANCE_TO'],
    ['concurrency', 'CONFORMANCE_CONCURRENCY'],
    ['timeout', 'CONFORMANCE_TIMEOUT'],
    ['retry-budget', 'CONFORMANCE_RETRY_BUDGET'],
    ['report-dir', 'CONFORMANCE_REPORT_DIR'],
    ['description', 'CONFORMANCE_DESCRIPTION'],
  ];
  for (const [flag, name] of mapping) {
    const value = values[flag];
    if (typeof value === 'string') process.env[name] = flag === 'report-dir' || flag === 'description' ? path.resolve(value) : value;
  }
  if (values['any-key-valid']) process.env.CONFORMANCE_ANY_KEY_VALID = '1';
  if (values.shard !== undefined && !/^\d+\/\d+$/.test(values.shard as string)) throw new UsageError(`--shard must look like 1/3, got "${values.shard}".`);
  const config = configFromEnv();
  process.env.CONFORMANCE_REPORT_DIR = path.resolve(config.reportDir);
  process.env.CONFORMANCE_DESCRIPTION = path.resolve(config.descriptionPath);
  await assertReachable(config.baseUrl, config.timeoutMs);
  const document = loadDescription(config.descriptionPath);
  const plan = planScenarios(document, config.level);
  const reportDir = path.resolve(config.reportDir);
  const reporter = new ConformanceReporter({
    document,
    notSent: plan.notSent,
    baseUrl: config.baseUrl,
    level: config.level,
    jsonFile: path.join(reportDir, 'conformance-report.json'),
    verbose: values.verbose === true,
    progress: (mark) => process.stdout.write(mark),
  });
  const { startVitest } = await import('vitest/node');
  const previousExitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    [],
    {
      config: suiteConfig,
      run: true,
      watch: false,
      testNamePattern: typeof values.filter === 'string' ? new RegExp(values.filter, 'i') : undefined,
      shard: values.shard as string | undefined,
      passWithNoTests: false,
    },
    {
      test: {
        reporters: [['junit', { outputFile: path.join(reportDir, 'junit.xml') }], reporter],
      },
    },
  );
  await vitest.close();
  const failed = vitest.state.getCountOfFailedTests() > 0 || vitest.state.getUnhandledErrors().length > 0 || reporter.crashed > 0 || (reporter.report?.totals.fail ?? 0) > 0;
  const ran = reporter.report ? Object.values(reporter.report.totals).reduce((a, b) => a + b, 0) : 0;
  process.exitCode = previousExitCode;
  process.stdout.write(`Reports: ${path.join(reportDir, 'conformance-report.json')}, ${path.join(reportDir, 'junit.xml')}\n`);
  if (ran === 0 && !failed) {
    process.stderr.write('No scenario ran (check --filter and --shard).\n');
    return 1;
  }
  return failed ? 1 : 0;
}
