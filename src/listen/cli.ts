// `numbers-api listen` (also `npm run listen -- …`): the local listening agent of part 6, and
// `numbers-api listen targets list|add|remove` to change its targets while it runs.
// Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 the deployment refused the key, 2 bad usage or a
// base URL where nothing answers (the first connection refused: a wrong address, said at once).
import { connect } from 'node:net';
import { runCommand, type CommandSpec } from '../cli/command.js';
import type { CliIo } from '../cli/io.js';
import { DELIVERY, MOCK_URL, SHARED, type Parsed } from '../cli/options.js';
import { untilSignal } from '../cli/run-until-signal.js';
import { UsageError } from '../cli/usage-error.js';
import { apiKey, baseUrl as validBaseUrl, deliveryOptions, port, token, wholeNumber } from '../cli/validators.js';
import { parseTargetUrl, TargetUrlError } from '../delivery/loopback-url.js';
import { formatSummary, startListenAgent } from './agent.js';
import { startControlServer } from './control.js';
import { createRequester, NoAnswer, type Exchange } from '../request/index.js';

const TARGETS_PORT = { type: 'string', value: '<port>', help: 'the loopback port of the targets API (default: any free port; printed at start either way)' } as const;
const TARGETS_TOKEN = { type: 'string', value: '<token>', env: 'NUMBERS_API_LISTEN_TOKEN', help: 'the token the targets API needs (default: a random one, printed at start)' } as const;

export const LISTEN = {
  name: 'numbers-api listen',
  usage: ['[--base-url <url>] --forward-to <url> [--forward-to <url> ...] [options]', 'targets list|add <url>|remove <url> --targets-port <port> --targets-token <token>'],
  about: `listen reads your account's events from a deployment (the mock, or the service's base URL) with
POST /api/v1/events/wait long polls, and POSTs each event's raw JSON to every target, by the local
fan-out rules of part 6: Content-Type: application/json; a 2xx is delivered; any other status, a
connection error or a timeout gets one retry, then the event is logged and dropped (nothing is
queued); requests to one target run side by side, so handlers must tolerate duplicates.

The base URL is the mock (${MOCK_URL}) unless given. When nothing answers there (the
first connection is refused), it stops at once with exit code 2.`,
  options: {
    'base-url': { ...SHARED['base-url'], help: `the deployment (default ${MOCK_URL}, the mock)` },
    'api-key': SHARED['api-key'],
    'forward-to': { type: 'string', value: '<url>', multiple: true, help: 'a target: http or https on 127.0.0.1, 0.0.0.0, localhost, ::1 or [::1] (repeatable; anything else is refused)' },
    ...DELIVERY,
    wait: { type: 'string', value: '<seconds>', help: 'how long each long poll waits, 1 to 60 (default 30)' },
    'targets-port': { ...TARGETS_PORT, was: ['control-port'] },
    'targets-token': { ...TARGETS_TOKEN, was: ['control-token'] },
  },
  notes: `While it runs, change the targets without a restart (the port and token are printed at start):
  numbers-api listen targets add http://127.0.0.1:3001/hooks --targets-port <port> --targets-token <token>
  numbers-api listen targets remove http://127.0.0.1:3001/hooks --targets-port <port> --targets-token <token>
  numbers-api listen targets list --targets-port <port> --targets-token <token>
(or curl http://127.0.0.1:<port>/targets -H 'Authorization: Bearer <token>', POST/DELETE with
-H 'Content-Type: application/json' -d '{"url": "..."}'). The targets API answers only this
machine's programs: never a web page, never without the token.

One line is printed per delivery; Ctrl-C (or SIGTERM) stops it and prints a summary.
A 429 from the deployment is waited out as Retry-After says; a lost connection is resumed with backoff.`,
  positionals: true,
} as const satisfies CommandSpec;

export const TARGETS = {
  name: 'numbers-api listen targets',
  usage: 'list|add <url>|remove <url> --targets-port <port> --targets-token <token>',
  about: 'Lists, adds or removes a target of a running listen agent, through its targets API.',
  options: {
    'targets-port': { ...TARGETS_PORT, help: "the agent's targets port (listen prints it at start), or its loopback URL", was: ['control'] },
    'targets-token': { ...TARGETS_TOKEN, help: 'the token of its targets API (listen prints it at start)', was: ['token'] },
  },
  positionals: true,
} as const satisfies CommandSpec;

export interface ListenCliContext {
  env?: NodeJS.ProcessEnv;
  /** Stops the agent (tests); the process's SIGINT and SIGTERM otherwise. */
  stop?: AbortSignal;
  /** Told the control URL once it listens (tests). */
  onReady?: (info: { controlUrl: string }) => void;
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
    `Start the mock (npx numbers-api mock, or npm start in the repository) or give the deployment with --base-url or ${SHARED['base-url'].env}.\n`
  );
}

async function run({ values, positionals, from }: Parsed<typeof LISTEN.options>, io: CliIo, context: ListenCliContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}"; targets are given with --forward-to.`);
  const baseUrlFrom = values['base-url'] !== undefined ? from('base-url') : 'the default';
  const baseUrl = validBaseUrl(values['base-url'] ?? MOCK_URL, baseUrlFrom === 'the default' ? '--base-url' : baseUrlFrom);
  const targets = (values['forward-to'] ?? []).map((url) => parseTargetUrl(url));
  const delivery = deliveryOptions(values);
  const waitSeconds = values.wait === undefined ? 30 : wholeNumber(values.wait, '--wait', 1, 60);
  const controlPort = values['targets-port'] === undefined ? 0 : port(values['targets-port'], from('targets-port'));
  const controlToken = values['targets-token'] === undefined ? undefined : token(values['targets-token'], from('targets-token'));
  const key = apiKey(values['api-key'], from('api-key'));
  const refused = await firstConnection(baseUrl);
  if (refused) {
    io.stderr(unreachableLine(baseUrl, refused, baseUrlFrom));
    return 2;
  }
  const log = (line: string): void => io.stdout(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
  const agent = startListenAgent({ baseUrl, apiKey: key, targets, delivery, waitSeconds, log });
  let control;
  try {
    control = await startControlServer(agent, controlPort, log, controlToken);
  } catch (error) {
    await agent.stop();
    io.stderr(`numbers-api listen: the targets port ${controlPort} cannot be used: ${(error as Error).message}\n`);
    return 2;
  }
  const stop = untilSignal(context.stop);
  io.stdout(
    `numbers-api listen: events of ${baseUrl.origin} to ${agent.targets().length ? agent.targets().join(', ') : 'no target yet'}\n` +
      `Targets port: ${control.port}. Change them with numbers-api listen targets list|add <url>|remove <url> --targets-port ${control.port} --targets-token ${control.token}  (${control.url}/targets, Authorization: Bearer ${control.token})\n` +
      'Ctrl-C stops it.\n',
  );
  context.onReady?.({ controlUrl: control.url });

  const outcome = await Promise.race([stop.stopped.then(() => ({ reason: 'stopped' as const, message: undefined })), agent.done]);
  const summary = await agent.stop();
  await control.close();
  stop.release();
  if (outcome.reason === 'unreachable') {
    // Refused between the check above and the first wait: the same answer.
    io.stderr(unreachableLine(baseUrl, outcome.message ?? 'refused', baseUrlFrom));
    return 2;
  }
  if (outcome.reason === 'unauthorized') {
    // The summary the agent made: the Error's message with any key redacted, never the body as it came.
    io.stderr(`numbers-api listen: ${baseUrl.origin} refused the key in ${from('api-key')} (401)${outcome.message ? `: ${outcome.message.trim()}` : ''}.\n`);
    io.stdout(formatSummary(summary));
    return 1;
  }
  io.stdout(`\nStopped. ${formatSummary(summary)}`);
  return 0;
}

async function targetsCommand({ values, positionals, from }: Parsed<typeof TARGETS.options>, io: CliIo): Promise<number> {
  const [action = 'list', url] = positionals;
  const given = values['targets-port'];
  if (!given) throw new UsageError('--targets-port <port> is needed (listen prints it when it starts).');
  const base = /^\d+$/.test(given) ? `http://127.0.0.1:${given}` : given;
  let controlUrl: URL;
  try {
    controlUrl = parseTargetUrl(new URL('/targets', base).href);
  } catch (error) {
    throw new UsageError(`${from('targets-port')} must be the agent's loopback port or URL: ${(error as Error).message}`);
  }
  const method = action === 'list' ? 'GET' : action === 'add' ? 'POST' : action === 'remove' ? 'DELETE' : undefined;
  if (!method || (method !== 'GET' && !url)) throw new UsageError('use list, add <url> or remove <url>.');
  const token = values['targets-token'];
  if (!token) throw new UsageError(`--targets-token <token> is needed (listen prints it when it starts), or ${TARGETS_TOKEN.env}.`);
  let answer: Exchange;
  try {
    answer = await createRequester({ baseUrl: controlUrl.origin }).send({ method, path: controlUrl.pathname, params: { header: { authorization: `Bearer ${token}` } }, ...(method !== 'GET' ? { body: { url } } : {}) });
    if (answer.json === undefined) throw new Error(`an answer that is not JSON (${answer.status})`);
  } catch (error) {
    io.stderr(`numbers-api listen targets: no agent answers at ${controlUrl.origin} (${error instanceof NoAnswer ? error.detail : (error as Error).message}).\n`);
    return 1;
  }
  const body = (answer.json ?? {}) as { targets?: string[]; error?: string };
  if (answer.status === 400) throw new UsageError(body.error ?? 'the agent refused the URL.');
  if (answer.status < 200 || answer.status > 299) {
    io.stderr(`numbers-api listen targets: ${body.error ?? answer.status}\n`);
    return 1;
  }
  io.stdout(body.targets && body.targets.length > 0 ? `${body.targets.join('\n')}\n` : 'no targets\n');
  return 0;
}

export async function runListenCli(argv: string[], io: CliIo, context: ListenCliContext = {}): Promise<number> {
  const env = context.env ?? process.env;
  if (argv[0] === 'targets') return runCommand(TARGETS, argv.slice(1), io, (parsed) => targetsCommand(parsed, io), env, [TargetUrlError]);
  return runCommand(LISTEN, argv, io, (parsed) => run(parsed, io, context), env, [TargetUrlError]);
}
