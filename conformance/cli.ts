// `numbers-api conformance ...` and `numbers-api proxy ...` (bin/numbers-api.ts dispatches here), and
// `npm run conformance -- ...`. Exit codes: 0 every required check passed, 1 a check failed,
// 2 usage error.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { anyKeyNotApplicable, readAnnouncement } from './announcement.js';
import { configFromEnv, DEFAULT_MAX_SENDS, parseBaseUrl, UsageError } from './config.js';
import { loadDescription } from './description.js';
import { suiteRedactor } from './http.js';
import { fullPlan, planScenarios, scenariosMatching, type Plan } from './plan.js';
import { checkWritesPreconditions, preconditionLine } from './preconditions.js';
import { probeDeployment, TargetError } from './probe.js';
import { runProxy } from './proxy.js';
import { runWorkflowsCommand, workflowsMatching } from './workflows.js';
import { SLICE_COUNT } from './suite/slices.js';
import { ConformanceReporter } from './reporters/conformance-reporter.js';
import { reportFiles, writeReports } from './reporters/files.js';
import { PROGRESS_LEGEND, stoppedReport, type ConformanceReport } from './reporters/report.js';
import { rerunFinding } from './rerun.js';

export const USAGE = `Usage:
  numbers-api conformance [options]      test a deployment against the contract
  numbers-api proxy --base-url <url>     validating proxy in front of a deployment
  (in the repository: npm run conformance -- [options])

Options:
  --base-url <url>        the deployment (or CONFORMANCE_BASE_URL)
  --api-key <key>         the API key (or CONFORMANCE_API_KEY; the environment keeps it out of
                          shell history). It never appears in any output or report.
  --level <level>         contract (default): reads and requests that must be rejected only;
                          writes: also judges flows across requests, creating a few things
                          (test messages, one message and one call to --to, an account change
                          it restores; needs --to). A call is never sent without an Idempotency-Key.
  --to <E.164>            the test number that --level writes messages and calls
  --second-key <key>      a key of a second account (or CONFORMANCE_SECOND_KEY): every record id
                          one account reads must answer 404 to the other (part 7)
  --mock-control-token <token>
                          against the package's mock under --strict-keys or beyond loopback: its
                          control token, so that --level writes can complete checkouts on the
                          accounts it signs up there (or CONFORMANCE_MOCK_CONTROL_TOKEN)
  --rerun <finding-id>    send the one request a finding of the last run is about again (the id
                          is in the console and the reports; reads --report-dir), and judge it
  --max-sends <n>         most requests --level writes may send that create or change something
                          (messages, call attempts, account changes; default ${DEFAULT_MAX_SENDS})
  --event-window <sec>    how long --level writes waits for the events it caused (default 20)
  --concurrency <n>       requests in flight at once (default 4)
  --timeout <seconds>     per request (default 30)
  --retry-budget <sec>    how long a request may wait out 429s before its check is skipped (default 60)
  --report-dir <dir>      where conformance-report.json, junit.xml and conformance-report.html go
                          (default ./conformance-report)
  -t, --filter <pattern>  only scenarios whose name matches (vitest -t), e.g. -t getUsage; with
                          --workflows, only the workflows whose id matches
  --shard <i>/<n>         run one shard of the suite (vitest --shard), 1 <= i <= n <= ${SLICE_COUNT}
  --description <file>    the OpenAPI description (default: the package's generated/openapi.json)
  --verbose               also list passing scenarios and every finding
  --workflows             replay the contract's Arazzo workflows instead of the scenarios: those
                          whose x-conformance level the run's --level allows (the rest listed as
                          not run, with why), under the same safety; each workflow is a
                          scenario of the same reports
  --any-key-valid         the deployment accepts any well-formed key (a mock without accounts,
                          such as numbers-api mock --stateless): the unknown-key 401 checks of
                          part 5.1 are reported as not applicable. Not needed for numbers-api
                          mock, which announces it (GET /__mock/about)
  --replay <recording>    replay a recording made on the mock (numbers-api mock --record)
                          under the suite's safety rules; see --replay --help
  --proxy                 start the validating proxy instead of the suite
  --port <n>              proxy port (default 4010)
  --host <host>           proxy host (default 127.0.0.1)
  --errors                proxy: answer a contract violation with an error instead of logging it
  -h, --help              this text

Exit codes: 0 all required checks passed (advisories never fail a run), 1 a check failed, 2 usage
error (also a base URL that is not this API, a key it refuses, or an account --level writes
cannot run on: no line to send from, no credit). The reports are written on every exit.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  level: { type: 'string' },
  to: { type: 'string' },
  'second-key': { type: 'string' },
  'mock-control-token': { type: 'string' },
  rerun: { type: 'string' },
  'max-sends': { type: 'string' },
  'event-window': { type: 'string' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  'retry-budget': { type: 'string' },
  'report-dir': { type: 'string' },
  filter: { type: 'string', short: 't' },
  shard: { type: 'string' },
  description: { type: 'string' },
  verbose: { type: 'boolean' },
  workflows: { type: 'boolean' },
  'any-key-valid': { type: 'boolean' },
  proxy: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  errors: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const suiteConfig = path.join(path.dirname(fileURLToPath(import.meta.url)), 'suite', `vitest.config${path.extname(fileURLToPath(import.meta.url))}`);

/** Filters a stream so the key cannot reach it, whatever prints (vitest, Prism, a stack trace). */
function guardStream(stream: NodeJS.WriteStream, ...secrets: string[]): () => void {
  const original = stream.write.bind(stream);
  const redact = suiteRedactor(secrets);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk;
    return (original as (...a: unknown[]) => boolean)(typeof text === 'string' ? redact(text) : text, ...rest);
  }) as typeof stream.write;
  return () => {
    stream.write = original as typeof stream.write;
  };
}

export async function runConformanceCli(argv: string[]): Promise<number> {
  // A replay of a recording has its own options and run (replay.ts).
  if (argv.some((a) => a === '--replay' || a.startsWith('--replay='))) return (await import('./replay.js')).runReplayCli(argv.filter((a) => a !== 'conformance'));
  let args = [...argv];
  let mode: 'suite' | 'proxy' = 'suite';
  if (args[0] === 'conformance') args = args.slice(1);
  else if (args[0] === 'proxy') {
    mode = 'proxy';
    args = args.slice(1);
  }
  const secret = flagValue(args, 'api-key') ?? process.env.CONFORMANCE_API_KEY ?? '';
  const secondSecret = flagValue(args, 'second-key') ?? process.env.CONFORMANCE_SECOND_KEY ?? '';
  const controlSecret = flagValue(args, 'mock-control-token') ?? process.env.CONFORMANCE_MOCK_CONTROL_TOKEN ?? '';
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, '.');
    process.stderr.write(`${suiteRedactor([secret])(message)}\n\n${USAGE}\n`);
    if (mode === 'suite' && !args.includes('--help') && !args.includes('-h')) stopReports(flagValue(args, 'report-dir'), {}, 2, message, secret);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.proxy) mode = 'proxy';
  const restoreOut = guardStream(process.stdout, secret, secondSecret, controlSecret);
  const restoreErr = guardStream(process.stderr, secret, secondSecret, controlSecret);
  try {
    if (mode === 'proxy') return await proxyMode(values);
    return await suiteMode(values);
  } catch (error) {
    if (error instanceof TargetError) {
      process.stderr.write(`${error.message}\n`);
      if (mode === 'suite') stopReports(values['report-dir'] as string | undefined, values, 2, error.message, secret);
      return 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\nRun with --help for the options.\n`);
      if (mode === 'suite') stopReports(values['report-dir'] as string | undefined, values, 2, error.message, secret);
      return 2;
    }
    const text = suiteRedactor([secret])(String((error as Error)?.stack ?? error));
    process.stderr.write(`${text}\n`);
    if (mode === 'suite') stopReports(values['report-dir'] as string | undefined, values, 1, text, secret);
    return 1;
  } finally {
    restoreOut();
    restoreErr();
  }
}

/** A flag's value read straight from argv, for when parseArgs refused the line. */
function flagValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === `--${flag}`) return args[i + 1];
    if (arg.startsWith(`--${flag}=`)) return arg.slice(flag.length + 3);
  }
  return undefined;
}

/**
 * The reports of a run that stopped (exit 2, or a crash): written all the same, with the reason,
 * where the run would have written them. A report directory that cannot be written is said, not
 * thrown: the exit code already tells the story.
 */
function stopReports(dirFlag: string | undefined, values: Record<string, string | boolean | undefined>, exitCode: number, message: string, secret: string): void {
  const dir = path.resolve(dirFlag ?? process.env.CONFORMANCE_REPORT_DIR ?? 'conformance-report');
  const baseUrl = (values['base-url'] as string | undefined) ?? process.env.CONFORMANCE_BASE_URL;
  const level = (values.level as string | undefined) ?? process.env.CONFORMANCE_LEVEL ?? 'contract';
  try {
    const files = writeReports(dir, stoppedReport({ baseUrl: baseUrl ? suiteRedactor([secret])(baseUrl) : undefined, level, exitCode, message: suiteRedactor([secret])(message) }));
    process.stdout.write(`Reports: ${files.json}, ${files.junit}, ${files.html}\n`);
  } catch (error) {
    process.stderr.write(`The reports could not be written to ${dir}: ${(error as Error).message}\n`);
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
    ['second-key', 'CONFORMANCE_SECOND_KEY'],
    ['mock-control-token', 'CONFORMANCE_MOCK_CONTROL_TOKEN'],
    ['max-sends', 'CONFORMANCE_MAX_SENDS'],
    ['event-window', 'CONFORMANCE_EVENT_WINDOW'],
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
  // Only what the run itself announces counts (the mock's announcement below), never an inherited setting.
  delete process.env.CONFORMANCE_MOCK;
  const shard = parseShard(values.shard as string | undefined);
  let config = configFromEnv();
  process.env.CONFORMANCE_REPORT_DIR = path.resolve(config.reportDir);
  process.env.CONFORMANCE_DESCRIPTION = path.resolve(config.descriptionPath);
  if (typeof values.rerun === 'string') {
    return rerunFinding(config, values.rerun, (line) => process.stdout.write(`${line}\n`));
  }
  const document = loadDescription(config.descriptionPath);
  if (values.workflows && values.shard !== undefined) throw new UsageError('--shard splits the scenarios; it does not apply to --workflows (select workflows with -t).');
  // Under --workflows, -t selects workflows by id; else scenarios by name.
  const onlyWorkflows = values.workflows && typeof values.filter === 'string' ? workflowsMatching(values.filter) : undefined;
  const filter = typeof values.filter === 'string' && !values.workflows ? parseFilter(values.filter, planScenarios(document, config.level, { mock: true, secondKey: true }), fullPlan(document)) : undefined;
  await probeDeployment(document, config.baseUrl, config.apiKey, config.timeoutMs);
  // Believed only as announced (announcement.ts): an unannounced deployment is judged in full.
  const announced = await readAnnouncement(config.baseUrl, Math.min(config.timeoutMs, 15_000));
  if (announced?.keys === 'any' || announced?.keys === 'strict') process.env.CONFORMANCE_MOCK = announced.keys;
  if (!config.anyKeyValid && announced?.keys === 'any') {
    process.env.CONFORMANCE_ANY_KEY_VALID = '1';
    process.env.CONFORMANCE_ANY_KEY_REASON = anyKeyNotApplicable(config.baseUrl, announced);
  }
  config = configFromEnv();
  const plan = planScenarios(document, config.level, { mock: config.mock !== undefined, secondKey: config.secondKey !== undefined });
  if (config.level === 'writes') await checkWritesPreconditions(document, config);
  if (values.workflows) {
    return runWorkflowsCommand(config, document, (text) => process.stdout.write(text), { only: onlyWorkflows, notSent: plan.notSent, verbose: values.verbose === true, isMock: announced !== undefined });
  }
  const reportDir = path.resolve(config.reportDir);
  const reporter = new ConformanceReporter({
    document,
    notSent: plan.notSent,
    baseUrl: config.baseUrl,
    level: config.level,
    maxSends: config.level === 'writes' ? config.maxSends : undefined,
    mock: config.mock !== undefined,
    secondKey: config.secondKey !== undefined,
    verbose: values.verbose === true,
    progress: (mark) => process.stdout.write(mark),
  });
  process.stdout.write(`${PROGRESS_LEGEND}\n`);
  const { startVitest } = await import('vitest/node');
  const previousExitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    [],
    {
      config: suiteConfig,
      run: true,
      watch: false,
      testNamePattern: filter,
      shard,
      passWithNoTests: false,
    },
    {
      test: {
        reporters: [reporter],
      },
    },
  );
  await vitest.close();
  const failed = vitest.state.getCountOfFailedTests() > 0 || vitest.state.getUnhandledErrors().length > 0 || reporter.crashed > 0 || (reporter.report?.totals.fail ?? 0) > 0;
  process.exitCode = previousExitCode;
  const report: ConformanceReport =
    reporter.report ?? stoppedReport({ baseUrl: config.baseUrl, level: config.level, exitCode: 1, message: 'The suite produced no report (vitest ended before its reporter ran).' });
  const ran = Object.values(report.totals).reduce((a, b) => a + b, 0);
  // A flow that met an account without credit or without a line: what the account needs, not a finding.
  const precondition = report.operations.flatMap((o) => o.scenarios).find((s) => s.precondition)?.precondition;
  let code = failed ? 1 : 0;
  if (precondition) {
    report.stopped = { exitCode: 2, message: preconditionLine(precondition) };
    process.stderr.write(`${report.stopped.message}\n`);
    code = 2;
  } else if (ran === 0 && !failed) {
    // -t matched something (parseFilter checked it), but nothing in this shard.
    const where = shard ? ` in shard ${shard}${filter ? ` that -t "${values.filter}" selects` : ''}` : '';
    report.stopped = { exitCode: 2, message: `No scenario ran: there is none${where}.` };
    process.stderr.write(`${report.stopped.message}\n`);
    code = 2;
  }
  writeReports(reportDir, report);
  const files = reportFiles(reportDir);
  process.stdout.write(`Reports: ${files.json}, ${files.junit}, ${files.html}\n`);
  return code;
}

/** `--shard i/n`, checked here so that a bad one is one line and exit 2, not vitest's stack trace. */
function parseShard(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [Number.NaN, Number.NaN];
  if (!m || index < 1 || count < 1 || index > count || count > SLICE_COUNT) {
    throw new UsageError(`--shard must be <i>/<n> with 1 <= i <= n <= ${SLICE_COUNT} (the suite has ${SLICE_COUNT} slices), got "${raw}".`);
  }
  return `${index}/${count}`;
}

/**
 * `-t <pattern>`, checked against the plan before anything is sent: a pattern that selects
 * nothing is a usage error that says what the names look like, not an empty run.
 */
function parseFilter(raw: string, plan: Plan, everything: Plan): RegExp {
  let pattern: RegExp;
  try {
    pattern = new RegExp(raw, 'i');
  } catch (error) {
    throw new UsageError(`-t "${raw}" is not a regular expression: ${(error as Error).message}.`);
  }
  const matched = scenariosMatching(plan, pattern);
  const operations = [...new Set(matched.map((s) => s.operationId))];
  if (matched.length === 0) {
    const checks = [...new Set(plan.scenarios.map((s) => s.check))].sort();
    const writesOnly = [...new Set(everything.scenarios.map((s) => s.check))].filter((c) => !checks.includes(c)).sort();
    throw new UsageError(
      `-t "${raw}" matches no scenario. Names are "<operationId> <title> [<check>]", e.g. -t getUsage, -t auth-required, -t 'part 4.4'.\n` +
        `Checks: ${checks.join(', ')}.${writesOnly.length ? `\nWith --level writes also: ${writesOnly.join(', ')}.` : ''}`,
    );
  }
  const shown = operations.length > 8 ? `${operations.slice(0, 8).join(', ')}, ...` : operations.join(', ');
  process.stdout.write(`-t "${raw}" matches ${matched.length} scenario(s) of ${operations.length} operation(s): ${shown}.\n`);
  return pattern;
}
