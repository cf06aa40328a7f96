// Run settings: the suite's options, each with the environment variable it is read from (the CLI
// turns flags into these, so the vitest workers that run the suite see the same settings).
import { SHARED, envSource, type Options } from '../src/cli/options.js';
import { UsageError } from '../src/cli/usage-error.js';
import { apiKey, baseUrl as validBaseUrl, oneOf, phoneNumber, seconds, wholeNumber } from '../src/cli/validators.js';
import { SLICE_COUNT } from './suite/slices.js';
import { defaultDescriptionPath, loadDescription } from './description.js';

export type Level = 'contract' | 'writes';

export interface ConformanceConfig {
  baseUrl: string;
  apiKey: string;
  level: Level;
  /** The test number `writes` sends a message and places a call to. */
  to?: string;
  concurrency: number;
  timeoutMs: number;
  /** How long one request may keep waiting out 429s before its check is skipped. */
  retryBudgetMs: number;
  descriptionPath: string;
  reportDir: string;
  /**
   * The deployment accepts every well-formed key (`sk_live_...`), as a mock without accounts does:
   * the "unknown key gets 401" checks are skipped, with that reason. Never set it for a live one.
   */
  anyKeyValid: boolean;
  /**
   * Why `anyKeyValid` holds, as the report says it: the deployment announced it (the numbers-api
   * mock's GET /__mock/about, announcement.ts) or the user passed --any-key-valid.
   */
  anyKeyValidReason?: string;
  /**
   * The most requests the `writes` level may send that create or change something (messages sent
   * or injected, call attempts, account changes and their restores). A check that would go past
   * it is skipped, not sent.
   */
  maxSends: number;
  /** How long the `writes` level waits for the events its own actions cause (part 6). */
  eventWindowMs: number;
  /**
   * A key of a second account (`--second-key`): every record id one account reads must be 404 for
   * the other (part 7). Kept out of every output, like the run's own key.
   */
  secondKey?: string;
  /**
   * A key of an account the team set aside on an empty wallet (`--empty-wallet-key`): the 402 gate
   * of part 3 is asked there, and a FIXED line's send (FIXTURE_ACCOUNTS). Kept out of every output.
   */
  emptyWalletKey?: string;
  /** A key of a free account the team set aside (`--free-account-key`): part 8's free limits. Kept out of every output. */
  freeAccountKey?: string;
  /**
   * The deployment announced itself as the package's mock (GET /__mock/about: `any` or `strict`
   * keys): the `writes` level then also provokes, on accounts it signs up there, what only the mock
   * can show (its documented test values, its sign-up code, its control surface).
   */
  mock?: 'any' | 'strict';
  /** The mock's control token (`--mock-control-token`), for its control surface under `--strict-keys` or beyond loopback. */
  mockControlToken?: string;
}

/**
 * The `writes` level needs 8 sends for its flows, and up to 7 more for the answers it provokes on
 * the account when its state allows (conformance/README.md, Safety): 16 leaves one to spare.
 */
export const DEFAULT_MAX_SENDS = 16;

/** What each fixture option adds at the writes level (scenarios/fixture-accounts.ts): the empty wallet's two refused requests and its FIXED line's message; the free account's refused call. */
const FIXTURE_SENDS = { 'empty-wallet': 3, 'free-account': 1 } as const;

/** Where the reports go unless --report-dir says otherwise, under the directory the command runs from. */
export const DEFAULT_REPORT_DIR = 'conformance-report';

export const OPTIONS = {
  'base-url': { ...SHARED['base-url'], help: 'the deployment', wasEnv: ['CONFORMANCE_BASE_URL'] },
  'api-key': { ...SHARED['api-key'], wasEnv: ['CONFORMANCE_API_KEY'] },
  level: { type: 'string', value: '<level>', env: 'CONFORMANCE_LEVEL', help: 'contract (default): reads and requests that must be rejected only; writes: also judges flows across requests, creating a few things (test messages, one message and one call to --to, an account change it restores; needs --to). A call is never sent without an Idempotency-Key.' },
  to: { type: 'string', value: '<E.164>', env: 'CONFORMANCE_TO', help: 'the test number that --level writes messages and calls' },
  'second-key': { type: 'string', value: '<key>', env: 'NUMBERS_API_SECOND_KEY', wasEnv: ['CONFORMANCE_SECOND_KEY'], help: 'a key of a second account: every record id one account reads must answer 404 to the other (part 7)' },
  'empty-wallet-key': { type: 'string', value: '<key>', env: 'NUMBERS_API_EMPTY_WALLET_KEY', help: 'a key of an account set aside on an empty wallet (balance at or below zero) with a pay-as-you-go line, and a FIXED one for its last rule: at --level writes the suite asks it a message to --to and a 10DLC submission, each to be refused with 402, and sends one message to --to from the FIXED line (part 3)' },
  'free-account-key': { type: 'string', value: '<key>', env: 'NUMBERS_API_FREE_ACCOUNT_KEY', help: "a key of a free account set aside (never topped up, never subscribed): its `limits`, and a call cap above the free ceiling refused with 400 on the account and a number (restored if accepted), and at --level writes on a call to --to (parts 2, 8)" },
  'control-token': { ...SHARED['control-token'], was: ['mock-control-token'], wasEnv: ['CONFORMANCE_MOCK_CONTROL_TOKEN'], help: "against the package's mock under --strict-keys or beyond loopback: its control token, so that --level writes can complete checkouts on the accounts it signs up there" },
  rerun: { type: 'string', value: '<finding-id>', help: "judge a finding of the last run again (its id is in the console and the reports): runs again the scenarios that showed it, with the run's base URL and --to from its report in --report-dir; exit 1 still there, 0 gone, 2 what it needs" },
  'max-sends': { type: 'string', value: '<n>', env: 'CONFORMANCE_MAX_SENDS', help: `most requests --level writes may send that create or change something (messages, call attempts, account changes; default ${DEFAULT_MAX_SENDS}, plus ${FIXTURE_SENDS['empty-wallet']} with --empty-wallet-key and ${FIXTURE_SENDS['free-account']} with --free-account-key)` },
  'event-window': { type: 'string', value: '<sec>', env: 'CONFORMANCE_EVENT_WINDOW', help: 'how long --level writes waits for the events it caused (default 20)' },
  concurrency: { type: 'string', value: '<n>', env: 'CONFORMANCE_CONCURRENCY', help: 'requests in flight at once (default 4)' },
  timeout: { type: 'string', value: '<seconds>', env: 'CONFORMANCE_TIMEOUT', help: 'per request (default 30)' },
  'retry-budget': { type: 'string', value: '<sec>', env: 'CONFORMANCE_RETRY_BUDGET', help: 'how long a request may wait out 429s before its check is skipped (default 60)' },
  'report-dir': { type: 'string', value: '<dir>', env: 'CONFORMANCE_REPORT_DIR', help: 'where conformance-report.json, junit.xml and conformance-report.html go (default ./conformance-report)' },
  filter: { type: 'string', value: '<pattern>', short: 't', help: 'only scenarios whose name matches (vitest -t), e.g. -t getUsage; with --workflows, only the workflows whose id matches' },
  shard: { type: 'string', value: '<i>/<n>', help: `run one shard of the suite (vitest --shard), 1 <= i <= n <= ${SLICE_COUNT}` },
  description: { type: 'string', value: '<file>', env: 'CONFORMANCE_DESCRIPTION', help: "the OpenAPI description (default: the package's generated/openapi.json)" },
  verbose: { type: 'boolean', help: 'also list passing scenarios and every finding' },
  workflows: { type: 'boolean', help: "replay the contract's Arazzo workflows instead of the scenarios: those whose x-conformance level the run's --level allows (the rest listed as not run, with why), under the same safety; each workflow is a scenario of the same reports" },
  'any-key-valid': { type: 'boolean', env: 'CONFORMANCE_ANY_KEY_VALID', help: 'the deployment accepts any well-formed key (a mock without accounts, such as numbers-api mock --stateless): the unknown-key 401 checks of part 5.1 are reported as not applicable. Not needed for numbers-api mock, which announces it (GET /__mock/about)' },
  replay: { type: 'string', value: '<recording>', help: "replay a recording made on the mock (numbers-api mock --record) under the suite's safety rules; see --replay --help" },
  proxy: { type: 'boolean', help: 'deprecated: run numbers-api proxy, which takes the same options' },
} as const satisfies Options;

/** A setting as the workers read it: its environment variable, else an older one. */
export function setting(name: keyof typeof OPTIONS, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const variable = envSource(OPTIONS[name], env);
  return variable === undefined ? undefined : env[variable];
}

export function parseBaseUrl(raw: string | undefined, from = '--base-url'): string {
  if (!raw) throw new UsageError(`No base URL: pass --base-url <url> or set ${OPTIONS['base-url'].env}.`);
  return validBaseUrl(raw, from).href.replace(/\/+$/, '');
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ConformanceConfig {
  const read = (name: keyof typeof OPTIONS) => setting(name, env);
  const baseUrl = parseBaseUrl(read('base-url'));
  const descriptionPath = read('description') || defaultDescriptionPath();
  const document = loadDescription(descriptionPath);
  const key = apiKey(read('api-key'), '--api-key', document);
  const level = oneOf(read('level') || 'contract', '--level', ['contract', 'writes'] as const);
  const to = read('to') || undefined;
  if (level === 'writes' && !to) throw new UsageError('--level writes needs --to <test number> (E.164) to send the message and place the call to.');
  if (to) phoneNumber(to, '--to', document);
  const number = (name: 'timeout' | 'retry-budget' | 'event-window', fallback: number): number => (read(name) ? seconds(read(name)!, `--${name}`) : fallback);
  const second = read('second-key');
  const mock = env.CONFORMANCE_MOCK;
  const fixtures = {
    ...(read('empty-wallet-key') ? { emptyWalletKey: apiKey(read('empty-wallet-key'), '--empty-wallet-key', document) } : {}),
    ...(read('free-account-key') ? { freeAccountKey: apiKey(read('free-account-key'), '--free-account-key', document) } : {}),
  };
  return {
    baseUrl,
    apiKey: key,
    level,
    to,
    concurrency: read('concurrency') ? wholeNumber(read('concurrency')!, '--concurrency', 1) : 4,
    timeoutMs: number('timeout', 30) * 1000,
    retryBudgetMs: number('retry-budget', 60) * 1000,
    descriptionPath,
    reportDir: read('report-dir') || DEFAULT_REPORT_DIR,
    anyKeyValid: read('any-key-valid') === '1' || read('any-key-valid') === 'true',
    anyKeyValidReason: env.CONFORMANCE_ANY_KEY_REASON || undefined,
    maxSends: read('max-sends') ? wholeNumber(read('max-sends')!, '--max-sends') : defaultMaxSends(fixtures),
    eventWindowMs: number('event-window', 20) * 1000,
    ...(second ? { secondKey: secondKey(apiKey(second, '--second-key', document), key) } : {}),
    ...fixtures,
    ...(mock === 'any' || mock === 'strict' ? { mock } : {}),
    ...(read('control-token') ? { mockControlToken: read('control-token') } : {}),
  };
}

/**
 * The accounts a team sets aside for what the run's own account cannot show (issue 38): the
 * option that names each, its setting, and what the account must be (each scenario checks it
 * first: an account that is not so is said about the fixture, never judged as the deployment's).
 */
export const FIXTURE_ACCOUNTS = {
  'empty-wallet': { option: '--empty-wallet-key', field: 'emptyWalletKey', account: 'an account on an empty wallet', sends: FIXTURE_SENDS['empty-wallet'] },
  'free-account': { option: '--free-account-key', field: 'freeAccountKey', account: 'a free account', sends: FIXTURE_SENDS['free-account'] },
} as const satisfies Record<string, { option: `--${keyof typeof OPTIONS}`; field: keyof ConformanceConfig; account: string; sends: number }>;

/**
 * --max-sends unless given: DEFAULT_MAX_SENDS, plus what each fixture option given adds at the
 * writes level (`sends`), so that giving one leaves the level's own checks their room.
 */
export function defaultMaxSends(config: Pick<ConformanceConfig, 'emptyWalletKey' | 'freeAccountKey'>): number {
  return DEFAULT_MAX_SENDS + Object.values(FIXTURE_ACCOUNTS).reduce((n, f) => n + (config[f.field] ? f.sends : 0), 0);
}

export type FixtureAccount = keyof typeof FIXTURE_ACCOUNTS;

function secondKey(value: string, apiKey: string): string {
  if (value === apiKey) throw new UsageError('--second-key must be the key of another account, not the run\'s own key.');
  return value;
}
