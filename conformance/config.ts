// Run settings, read from CONFORMANCE_* environment variables (the CLI turns flags into these, so
// the vitest workers that run the suite see the same settings).
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

export class UsageError extends Error {}

function positiveNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${name} must be a positive number, got "${raw}".`);
  return value;
}

function wholeNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw new UsageError(`${name} must be a whole number (0 or more), got "${raw}".`);
  return value;
}

export function parseBaseUrl(raw: string | undefined): string {
  if (!raw) throw new UsageError('No base URL: pass --base-url <url> or set CONFORMANCE_BASE_URL.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The base URL "${raw}" is not a valid URL (expected e.g. https://api.example.com).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`The base URL must use http:// or https://, got "${url.protocol}".`);
  }
  if (url.username || url.password) throw new UsageError('The base URL must not carry credentials; pass the key with --api-key or CONFORMANCE_API_KEY.');
  if (url.search || url.hash) throw new UsageError('The base URL must not carry a query or fragment.');
  return url.href.replace(/\/+$/, '');
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ConformanceConfig {
  const baseUrl = parseBaseUrl(env.CONFORMANCE_BASE_URL);
  const apiKey = env.CONFORMANCE_API_KEY;
  if (!apiKey) throw new UsageError('No API key: set CONFORMANCE_API_KEY (or pass --api-key).');
  const level = (env.CONFORMANCE_LEVEL || 'contract') as Level;
  if (level !== 'contract' && level !== 'writes') {
    throw new UsageError(`--level must be "contract" or "writes", got "${level}".`);
  }
  const to = env.CONFORMANCE_TO || undefined;
  if (level === 'writes' && !to) throw new UsageError('--level writes needs --to <test number> (E.164) to send the message and place the call to.');
  if (to && !isE164(to, env.CONFORMANCE_DESCRIPTION)) throw new UsageError(`--to must be an E.164 number such as +14155550123, got "${to}".`);
  const concurrency = positiveNumber('--concurrency', env.CONFORMANCE_CONCURRENCY, 4);
  if (!Number.isInteger(concurrency)) throw new UsageError('--concurrency must be a whole number.');
  return {
    baseUrl,
    apiKey,
    level,
    to,
    concurrency,
    timeoutMs: positiveNumber('--timeout', env.CONFORMANCE_TIMEOUT, 30) * 1000,
    retryBudgetMs: positiveNumber('--retry-budget', env.CONFORMANCE_RETRY_BUDGET, 60) * 1000,
    descriptionPath: env.CONFORMANCE_DESCRIPTION || defaultDescriptionPath(),
    reportDir: env.CONFORMANCE_REPORT_DIR || 'conformance-report',
    anyKeyValid: env.CONFORMANCE_ANY_KEY_VALID === '1' || env.CONFORMANCE_ANY_KEY_VALID === 'true',
    anyKeyValidReason: env.CONFORMANCE_ANY_KEY_REASON || undefined,
    maxSends: wholeNumber('--max-sends', env.CONFORMANCE_MAX_SENDS, DEFAULT_MAX_SENDS),
    eventWindowMs: positiveNumber('--event-window', env.CONFORMANCE_EVENT_WINDOW, 20) * 1000,
    ...(env.CONFORMANCE_SECOND_KEY ? { secondKey: secondKey(env.CONFORMANCE_SECOND_KEY, apiKey) } : {}),
    ...(env.CONFORMANCE_MOCK === 'any' || env.CONFORMANCE_MOCK === 'strict' ? { mock: env.CONFORMANCE_MOCK } : {}),
    ...(env.CONFORMANCE_MOCK_CONTROL_TOKEN ? { mockControlToken: env.CONFORMANCE_MOCK_CONTROL_TOKEN } : {}),
  };
}

function secondKey(value: string, apiKey: string): string {
  if (value === apiKey) throw new UsageError('--second-key must be the key of another account, not the run\'s own key.');
  return value;
}

/** E.164 as the description's own `E164` schema states it (part 8), not restated here. */
function isE164(value: string, descriptionPath: string | undefined): boolean {
  const pattern = loadDescription(descriptionPath || defaultDescriptionPath()).components?.schemas?.E164?.pattern;
  return typeof pattern === 'string' ? new RegExp(pattern, 'u').test(value) : true;
}
