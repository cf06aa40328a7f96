// `numbers-api listen` (also `npm run listen -- …`): the local listening agent of part 6, and
// `numbers-api listen targets list|add|remove` to change its targets while it runs.
// Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 the deployment refused the key, 2 bad usage or a
// base URL where nothing answers (the first connection refused: a wrong address, said at once).
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_SIGNATURE_HEADER, DEFAULT_TIMEOUT_SECONDS, type DeliveryOptions } from '../delivery/deliver.js';
import { parseTargetUrl, TargetUrlError } from '../delivery/loopback-url.js';
import { formatSummary, startListenAgent } from './agent.js';
import { startControlServer } from './control.js';
import { createRequester, NoAnswer, type Exchange } from '../request/index.js';

/** Where the key comes from: never a flag, so it stays out of the shell history and `ps`. */
export const API_KEY_ENV = 'NUMBERS_API_KEY';
/** Where the base URL comes from when --base-url is not given (as the key does). */
export const BASE_URL_ENV = 'NUMBERS_API_BASE_URL';
/** Where `listen --control-token` and `listen targets --token` read the control port's token from when not given. */
export const LISTEN_TOKEN_ENV = 'NUMBERS_API_LISTEN_TOKEN';
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export const LISTEN_USAGE = `Usage:
  numbers-api listen [--base-url <url>] --forward-to <url> [--forward-to <url> ...] [options]
  numbers-api listen targets list|add <url>|remove <url> --control <port> --token <token>

listen reads your account's events from a deployment (the mock, or the service's base URL) with
POST /api/v1/events/wait long polls, and POSTs each event's raw JSON to every target, by the local
fan-out rules of part 6: Content-Type: application/json; a 2xx is delivered; any other status, a
connection error or a timeout gets one retry, then the event is logged and dropped (nothing is
queued); requests to one target run side by side, so handlers must tolerate duplicates.

The API key is read from ${API_KEY_ENV}; the base URL from --base-url, else ${BASE_URL_ENV},
else the mock (${DEFAULT_BASE_URL}). When nothing answers there (the first connection is
refused), it stops at once with exit code 2.

Options:
  --base-url <url>            the deployment (or ${BASE_URL_ENV}; default ${DEFAULT_BASE_URL}, the mock)
  --forward-to <url>          a target: http or https on 127.0.0.1, 0.0.0.0, localhost, ::1 or [::1]
                              (repeatable; anything else is refused)
  --secret <secret>           sign the raw body: HMAC-SHA256, hex, in ${DEFAULT_SIGNATURE_HEADER}
  --signature-header <name>   send the signature in this header instead (needs --secret)
  --bearer <token>            send Authorization: Bearer <token> (combinable with --secret)
  --timeout <seconds>         per delivery attempt (default ${DEFAULT_TIMEOUT_SECONDS})
  --wait <seconds>            how long each long poll waits, 1 to 60 (default 30)
  --control-port <port>       the loopback port of the targets API (default: any free port; the
                              port is printed at start either way)
  --control-token <token>     the token the targets API needs (default: a random one, printed at
                              start; or ${LISTEN_TOKEN_ENV})
  -h, --help                  this help

While it runs, change the targets without a restart (the port and token are printed at start):
  numbers-api listen targets add http://127.0.0.1:3001/hooks --control <port> --token <token>
  numbers-api listen targets remove http://127.0.0.1:3001/hooks --control <port> --token <token>
  numbers-api listen targets list --control <port> --token <token>
(or curl http://127.0.0.1:<port>/targets -H 'Authorization: Bearer <token>', POST/DELETE with
-H 'Content-Type: application/json' -d '{"url": "..."}'). The targets API answers only this
machine's programs: never a web page, never without the token.

One line is printed per delivery; Ctrl-C (or SIGTERM) stops it and prints a summary.
A 429 from the deployment is waited out as Retry-After says; a lost connection is resumed with backoff.
`;

/** A bad flag or value: one line, exit code 2 (also thrown by `parseBaseUrl`, which `numbers-api mcp` shares). */
export class UsageError extends Error {}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export interface ListenCliContext {
  env?: NodeJS.ProcessEnv;
  /** Stops the agent (tests); the process's SIGINT and SIGTERM otherwise. */
  stop?: AbortSignal;
  /** Told the control URL once it listens (tests). */
  onReady?: (info: { controlUrl: string }) => void;
}

function positiveSeconds(flag: string, value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${flag} is seconds, a number above 0; got "${value}".`);
  return seconds;
}

/** A base URL as given by a flag or the environment: http(s), no credentials (the key comes from the environment). */
export function parseBaseUrl(input: string, from: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UsageError(`${from} "${input}" is not a URL; give one such as ${DEFAULT_BASE_URL}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${from} "${input}" must use http:// or https://.`);
  if (url.username || url.password) throw new UsageError(`${from} must not carry credentials; the key is read from ${API_KEY_ENV}.`);
  return url;
}

/**
 * Whether anything accepts a connection at the base URL's host and port: a wrong address (nothing
 * listens, the host does not resolve) is said at once instead of being retried forever.
 */
function firstConnection(url: URL, timeoutMs = 5000): Promise<string | undefined> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

function unreachableLine(baseUrl: URL, cause: string, from: string): string {
  return (
    `numbers-api listen: nothing answers at ${baseUrl.origin} (${cause}), the base URL from ${from}. ` +
    `Start the mock (npx numbers-api mock, or npm start in the repository) or give the deployment with --base-url or ${BASE_URL_ENV}.\n`
  );
}

function parseRunArgs(argv: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      'forward-to': { type: 'string', multiple: true },
      secret: { type: 'string' },
      'signature-header': { type: 'string' },
      bearer: { type: 'string' },
      timeout: { type: 'string' },
      wait: { type: 'string' },
      'control-port': { type: 'string' },
      'control-token': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true as const };
  if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}"; targets are given with --forward-to.`);
  const fromEnv = env[BASE_URL_ENV];
  const baseUrlFrom = values['base-url'] !== undefined ? '--base-url' : fromEnv ? BASE_URL_ENV : 'the default';
  const baseUrl = parseBaseUrl(values['base-url'] ?? (fromEnv || DEFAULT_BASE_URL), baseUrlFrom === 'the default' ? '--base-url' : baseUrlFrom);
  const targets = (values['forward-to'] ?? []).map((url) => parseTargetUrl(url));
  const delivery: DeliveryOptions = {};
  if (values.secret !== undefined) {
    if (values.secret === '') throw new UsageError('--secret must not be empty.');
    delivery.secret = values.secret;
  }
  if (values['signature-header'] !== undefined) {
    if (values.secret === undefined) throw new UsageError('--signature-header names the header of the signature, so it needs --secret.');
    if (!TOKEN.test(values['signature-header'])) throw new UsageError(`--signature-header "${values['signature-header']}" is not a valid HTTP header name.`);
    delivery.signatureHeader = values['signature-header'];
  }
  if (values.bearer !== undefined) {
    if (!/^\S+$/.test(values.bearer)) throw new UsageError('--bearer must be one token, without spaces, and not empty.');
    delivery.bearer = values.bearer;
  }
  if (values.timeout !== undefined) delivery.timeoutSeconds = positiveSeconds('--timeout', values.timeout);
  let waitSeconds = 30;
  if (values.wait !== undefined) {
    waitSeconds = Number(values.wait);
    if (!Number.isInteger(waitSeconds) || waitSeconds < 1 || waitSeconds > 60) throw new UsageError(`--wait is whole seconds from 1 to 60 (part 8); got "${values.wait}".`);
  }
  let controlPort = 0;
  if (values['control-port'] !== undefined) {
    controlPort = Number(values['control-port']);
    if (!Number.isInteger(controlPort) || controlPort < 0 || controlPort > 65535) throw new UsageError(`--control-port is a port number; got "${values['control-port']}".`);
  }
  const controlToken = values['control-token'] ?? (env[LISTEN_TOKEN_ENV] || undefined);
  if (controlToken !== undefined && !/^[\x21-\x7e]{8,200}$/.test(controlToken)) throw new UsageError('--control-token must be 8 to 200 visible ASCII characters.');
  const apiKey = env[API_KEY_ENV];
  if (!apiKey) throw new UsageError(`No API key: set ${API_KEY_ENV} (a key beginning sk_live_).`);
  return { help: false as const, baseUrl, baseUrlFrom, targets, delivery, waitSeconds, controlPort, controlToken, apiKey };
}

async function run(argv: string[], io: CliIo, context: ListenCliContext): Promise<number> {
  let parsed: ReturnType<typeof parseRunArgs>;
  try {
    parsed = parseRunArgs(argv, context.env ?? process.env);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TargetUrlError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`numbers-api listen: ${(error as Error).message}\n\nRun numbers-api listen --help for the options.\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    io.stdout(LISTEN_USAGE);
    return 0;
  }
  const refused = await firstConnection(parsed.baseUrl);
  if (refused) {
    io.stderr(unreachableLine(parsed.baseUrl, refused, parsed.baseUrlFrom));
    return 2;
  }
  const stamp = (): string => new Date().toISOString().slice(11, 23);
  const agent = startListenAgent({
    baseUrl: parsed.baseUrl,
    apiKey: parsed.apiKey,
    targets: parsed.targets,
    delivery: parsed.delivery,
    waitSeconds: parsed.waitSeconds,
    log: (line) => io.stdout(`${stamp()} ${line}\n`),
  });
  let control;
  try {
    control = await startControlServer(agent, parsed.controlPort, (line) => io.stdout(`${stamp()} ${line}\n`), parsed.controlToken);
  } catch (error) {
    await agent.stop();
    io.stderr(`numbers-api listen: the control port ${parsed.controlPort} cannot be used: ${(error as Error).message}\n`);
    return 2;
  }
  // The signal handlers go in before the announcement (a Ctrl-C right after it stops cleanly) and
  // stay until the agent has stopped (a second Ctrl-C does not kill it half-way).
  let removeSignalHandlers = (): void => undefined;
  const stopRequested = new Promise<void>((resolve) => {
    if (context.stop) {
      if (context.stop.aborted) resolve();
      context.stop.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const onSignal = (): void => resolve();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    removeSignalHandlers = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  });
  io.stdout(
    `numbers-api listen: events of ${parsed.baseUrl.origin} to ${agent.targets().length ? agent.targets().join(', ') : 'no target yet'}\n` +
      `Control port: ${control.port}. Targets: numbers-api listen targets list|add <url>|remove <url> --control ${control.port} --token ${control.token}  (${control.url}/targets, Authorization: Bearer ${control.token})\n` +
      'Ctrl-C stops it.\n',
  );
  context.onReady?.({ controlUrl: control.url });

  const outcome = await Promise.race([stopRequested.then(() => ({ reason: 'stopped' as const, message: undefined })), agent.done]);
  const summary = await agent.stop();
  await control.close();
  removeSignalHandlers();
  if (outcome.reason === 'unreachable') {
    // Refused between the check above and the first wait: the same answer.
    io.stderr(unreachableLine(parsed.baseUrl, outcome.message ?? 'refused', parsed.baseUrlFrom));
    return 2;
  }
  if (outcome.reason === 'unauthorized') {
    // The summary the agent made: the Error's message with any key redacted, never the body as it came.
    io.stderr(`numbers-api listen: ${parsed.baseUrl.origin} refused the key in ${API_KEY_ENV} (401)${outcome.message ? `: ${outcome.message.trim()}` : ''}.\n`);
    io.stdout(formatSummary(summary));
    return 1;
  }
  io.stdout(`\nStopped. ${formatSummary(summary)}`);
  return 0;
}

async function targetsCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { control?: string; token?: string };
  let positionals: string[];
  try {
    let help: boolean | undefined;
    ({ values: { help, ...values }, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { control: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
    if (help) {
      io.stdout(LISTEN_USAGE);
      return 0;
    }
  } catch (error) {
    io.stderr(`numbers-api listen targets: ${(error as Error).message}\n`);
    return 2;
  }
  const [action = 'list', url] = positionals;
  if (!values.control) {
    io.stderr('numbers-api listen targets: --control <port> is needed (listen prints it when it starts).\n');
    return 2;
  }
  const base = /^\d+$/.test(values.control) ? `http://127.0.0.1:${values.control}` : values.control;
  let controlUrl: URL;
  try {
    controlUrl = parseTargetUrl(new URL('/targets', base).href);
  } catch (error) {
    io.stderr(`numbers-api listen targets: --control must be the agent's loopback port or URL: ${(error as Error).message}\n`);
    return 2;
  }
  const method = action === 'list' ? 'GET' : action === 'add' ? 'POST' : action === 'remove' ? 'DELETE' : undefined;
  if (!method || (method !== 'GET' && !url)) {
    io.stderr('numbers-api listen targets: use list, add <url> or remove <url>.\n');
    return 2;
  }
  const token = values.token ?? (env[LISTEN_TOKEN_ENV] || undefined);
  if (!token) {
    io.stderr(`numbers-api listen targets: --token <token> is needed (listen prints it when it starts), or ${LISTEN_TOKEN_ENV}.\n`);
    return 2;
  }
  let answer: Exchange;
  try {
    answer = await createRequester({ baseUrl: controlUrl.origin }).send({ method, path: controlUrl.pathname, params: { header: { authorization: `Bearer ${token}` } }, ...(method !== 'GET' ? { body: { url } } : {}) });
    if (answer.json === undefined) throw new Error(`an answer that is not JSON (${answer.status})`);
  } catch (error) {
    io.stderr(`numbers-api listen targets: no agent answers at ${controlUrl.origin} (${error instanceof NoAnswer ? error.detail : (error as Error).message}).\n`);
    return 1;
  }
  const body = (answer.json ?? {}) as { targets?: string[]; error?: string };
  if (answer.status < 200 || answer.status > 299) {
    io.stderr(`numbers-api listen targets: ${body.error ?? answer.status}\n`);
    return answer.status === 400 ? 2 : 1;
  }
  io.stdout(body.targets && body.targets.length > 0 ? `${body.targets.join('\n')}\n` : 'no targets\n');
  return 0;
}

export async function runListenCli(argv: string[], io: CliIo, context: ListenCliContext = {}): Promise<number> {
  if (argv[0] === 'targets') return targetsCommand(argv.slice(1), io, context.env);
  return run(argv, io, context);
}
