// `numbers-api conformance ...` and `numbers-api proxy ...` (bin/numbers-api.ts dispatches here), and
// `npm run conformance -- ...`. Exit codes: 0 every required check passed, 1 a check failed,
// 2 usage error.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, usageLines } from '../src/cli/command.js';
import { processIo } from '../src/cli/io.js';
import { envSource, parseOptions, type Option, type Parsed } from '../src/cli/options.js';
import { UsageError } from '../src/cli/usage-error.js';
import { anyKeyNotApplicable, readAnnouncement, type Announcement } from './announcement.js';
import { configFromEnv, DEFAULT_REPORT_DIR, OPTIONS, setting, type ConformanceConfig } from './config.js';
import { loadDescription, type Json } from './description.js';
import { suiteRedactor } from './http.js';
import { fullPlan, planOptions, planScenarios, scenariosMatching, type Plan } from './plan.js';
import { checkWritesPreconditions, preconditionLine } from './preconditions.js';
import { probeDeployment, TargetError } from './probe.js';
import { runWorkflowsCommand, workflowsMatching } from './workflows.js';
import { SLICE_COUNT } from './suite/slices.js';
import { ConformanceReporter } from './reporters/conformance-reporter.js';
import { reportFiles, writeReports } from './reporters/files.js';
import { PROGRESS_LEGEND, stoppedReport, type ConformanceReport } from './reporters/report.js';
import { readRunReport, rerunFinding } from './rerun.js';

export const CONFORMANCE = {
  name: 'numbers-api conformance',
  usage: '[options]',
  about: 'Tests a deployment against the contract (in the repository: npm run conformance -- [options]).',
  options: OPTIONS,
  notes: `Exit codes: 0 all required checks passed (advisories never fail a run), 1 a check failed, 2 usage
error (also a base URL that is not this API, a key it refuses, or an account --level writes
cannot run on: no line to send from, no credit). The reports are written on every exit but a
usage error, which leaves the last run's as they were. --rerun: 1 still there, 0 gone, 2 it
cannot judge here (it says what it needs); it writes conformance-rerun-<id>.json beside the
run's reports, never over them.`,
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

/**
 * An option's value read straight from `argv` and the environment, for when parseArgs refused the
 * line (a secret to keep out of the output, a report directory to write to all the same).
 */
function rawValue(name: string, option: Option, argv: string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const flag of [name, ...(option.was ?? [])]) {
    const at = argv.findIndex((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));
    if (at >= 0) return argv[at] === `--${flag}` ? argv[at + 1] : argv[at]!.slice(flag.length + 3);
  }
  const variable = envSource(option, env);
  return variable === undefined ? undefined : env[variable];
}

export async function runConformanceCli(argv: string[]): Promise<number> {
  // A replay of a recording has its own options and run (replay.ts).
  if (argv.some((a) => a === '--replay' || a.startsWith('--replay='))) return (await import('./replay.js')).runReplayCli(argv);
  // `--proxy` is the old name of `numbers-api proxy`, kept for a release.
  if (argv.includes('--proxy')) return (await import('./proxy.js')).runProxyCli(argv.filter((a) => a !== '--proxy'), processIo);
  const secrets = (['api-key', 'second-key', 'empty-wallet-key', 'free-account-key', 'control-token'] as const).map((name) => rawValue(name, OPTIONS[name], argv) ?? '');
  const secret = secrets[0]!;
  let parsed: Parsed<typeof OPTIONS>;
  try {
    parsed = parseOptions(OPTIONS, argv);
  } catch (error) {
    // A usage error writes nothing: the last run's reports stay as they were.
    process.stderr.write(suiteRedactor([secret])(usageLines(CONFORMANCE, (error as Error).message)));
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(helpText(CONFORMANCE));
    return 0;
  }
  const restoreOut = guardStream(process.stdout, ...secrets);
  const restoreErr = guardStream(process.stderr, ...secrets);
  // A rerun never writes the run's reports: it reads them.
  const rerun = typeof parsed.values.rerun === 'string';
  try {
    return await (rerun ? rerunMode(parsed) : suiteMode(parsed));
  } catch (error) {
    if (error instanceof UsageError) {
      // Bad usage says where to read more, and writes nothing: the last run's reports stay as they were.
      process.stderr.write(usageLines(CONFORMANCE, error.message));
      return 2;
    }
    if (error instanceof TargetError) {
      // A deployment that is not this API, or a key it refuses, is one line, and the run's reports say it.
      process.stderr.write(`${error.message}\n`);
      if (!rerun) stopReports(argv, 2, error.message, secret);
      return 2;
    }
    const text = suiteRedactor([secret])(String((error as Error)?.stack ?? error));
    process.stderr.write(`${text}\n`);
    if (!rerun) stopReports(argv, 1, text, secret);
    return 1;
  } finally {
    restoreOut();
    restoreErr();
  }
}

/**
 * The reports of a run that stopped after it reached the deployment (exit 2: not this API, a key
 * it refuses, an account the level cannot run on; or a crash): written all the same, with the
 * reason, where the run would have written them. A report directory that cannot be written is
 * said, not thrown: the exit code already tells the story.
 */
function stopReports(argv: string[], exitCode: number, message: string, secret: string): void {
  const value = (name: keyof typeof OPTIONS): string | undefined => rawValue(name, OPTIONS[name], argv);
  const dir = path.resolve(value('report-dir') ?? DEFAULT_REPORT_DIR);
  const baseUrl = value('base-url');
  try {
    const files = writeReports(dir, stoppedReport({ baseUrl: baseUrl ? suiteRedactor([secret])(baseUrl) : undefined, level: value('level') ?? 'contract', exitCode, message: suiteRedactor([secret])(message) }));
    process.stdout.write(`Reports: ${files.json}, ${files.junit}, ${files.html}\n`);
  } catch (error) {
    process.stderr.write(`The reports could not be written to ${dir}: ${(error as Error).message}\n`);
  }
}

/** Every setting becomes its environment variable: the vitest workers read the same settings. */
function exportSettings(values: Parsed<typeof OPTIONS>['values']): void {
  for (const [name, option] of Object.entries(OPTIONS) as [keyof typeof OPTIONS, Option][]) {
    const value = values[name];
    if (option.env === undefined || value === undefined) continue;
    process.env[option.env] = typeof value === 'boolean' ? (value ? '1' : '') : name === 'report-dir' || name === 'description' ? path.resolve(value) : value;
  }
  // Only what the run itself announces counts (the mock's announcement below), never an inherited setting.
  delete process.env.CONFORMANCE_MOCK;
  process.env.CONFORMANCE_REPORT_DIR = path.resolve(setting('report-dir') || DEFAULT_REPORT_DIR);
}

/**
 * What a run learns of the deployment before its first check, and the settings that follow: it is
 * this API and takes the key (probe.ts), what it announces (announcement.ts: the package's mock,
 * which keys it accepts), and, at --level writes, that the account can run that level.
 */
async function reachDeployment(document: Json): Promise<{ config: ConformanceConfig; announced: Announcement | undefined }> {
  const first = configFromEnv();
  await probeDeployment(document, first.baseUrl, first.apiKey, first.timeoutMs);
  // Believed only as announced (announcement.ts): an unannounced deployment is judged in full.
  const announced = await readAnnouncement(first.baseUrl, Math.min(first.timeoutMs, 15_000));
  if (announced?.keys === 'any' || announced?.keys === 'strict') process.env.CONFORMANCE_MOCK = announced.keys;
  if (!first.anyKeyValid && announced?.keys === 'any') {
    process.env.CONFORMANCE_ANY_KEY_VALID = '1';
    process.env.CONFORMANCE_ANY_KEY_REASON = anyKeyNotApplicable(first.baseUrl, announced);
  }
  const config = configFromEnv();
  if (config.level === 'writes') await checkWritesPreconditions(document, config);
  return { config, announced };
}

/**
 * `--rerun <finding-id>` (rerun.ts): what the line does not say is read from the run's report (its
 * base URL and --to); the level is never: only a person chooses to create things.
 */
async function rerunMode({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  exportSettings(values);
  const report = readRunReport(process.env.CONFORMANCE_REPORT_DIR!);
  if (!setting('base-url') && report.baseUrl) process.env[OPTIONS['base-url'].env] = report.baseUrl;
  if (!setting('to') && report.to) process.env[OPTIONS.to.env] = report.to;
  const { config } = await reachDeployment(loadDescription(configFromEnv().descriptionPath));
  return rerunFinding(config, values.rerun!, (line) => process.stdout.write(`${line}\n`));
}

async function suiteMode({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  exportSettings(values);
  const shard = parseShard(values.shard);
  const settings = configFromEnv();
  process.env.CONFORMANCE_DESCRIPTION = path.resolve(settings.descriptionPath);
  const document = loadDescription(settings.descriptionPath);
  if (values.workflows && values.shard !== undefined) throw new UsageError('--shard splits the scenarios; it does not apply to --workflows (select workflows with -t).');
  // Under --workflows, -t selects workflows by id; else scenarios by name.
  const onlyWorkflows = values.workflows && typeof values.filter === 'string' ? workflowsMatching(values.filter) : undefined;
  const filter = typeof values.filter === 'string' && !values.workflows ? parseFilter(values.filter, planScenarios(document, settings.level, { mock: true, secondKey: true, emptyWallet: true, freeAccount: true }), fullPlan(document)) : undefined;
  const { config, announced } = await reachDeployment(document);
  const plan = planScenarios(document, config.level, planOptions(config));
  if (values.workflows) {
    return runWorkflowsCommand(config, document, (text) => process.stdout.write(text), { only: onlyWorkflows, notSent: plan.notSent, verbose: values.verbose === true, isMock: announced !== undefined });
  }
  const reportDir = path.resolve(config.reportDir);
  const reporter = new ConformanceReporter({
    document,
    notSent: plan.notSent,
    baseUrl: config.baseUrl,
    level: config.level,
    ...(config.level === 'writes' && config.to ? { to: config.to } : {}),
    maxSends: config.level === 'writes' ? config.maxSends : undefined,
    ...planOptions(config),
    verbose: values.verbose === true,
    reportDir,
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
  // A fixture account that is not what its option says: said about the fixture, and the run cannot judge its rules.
  const fixture = report.operations.flatMap((o) => o.scenarios).find((s) => s.fixture)?.fixture;
  let code = failed ? 1 : 0;
  if (precondition || fixture) {
    report.stopped = { exitCode: 2, message: precondition ? preconditionLine(precondition) : fixture! };
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
      `-t "${raw}" matches no scenario. Names are "<operationId> <title> [<check>]", e.g. -t getUsage, -t auth-required, -t 'part 4.4'. ` +
        `Checks: ${checks.join(', ')}.${writesOnly.length ? ` With --level writes also: ${writesOnly.join(', ')}.` : ''}`,
    );
  }
  const shown = operations.length > 8 ? `${operations.slice(0, 8).join(', ')}, ...` : operations.join(', ');
  process.stdout.write(`-t "${raw}" matches ${matched.length} scenario(s) of ${operations.length} operation(s): ${shown}.\n`);
  return pattern;
}
