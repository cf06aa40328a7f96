// `numbers-api events send|list` (also `npm run events -- send …`): POST example events from the
// description, or the user's own JSON, to a local webhook or fan-out handler, by the local fan-out
// rules of part 6. Exit code: 0 every event delivered, 1 at least one dropped after its retry,
// 2 bad usage (flag, URL, file or event name).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { processIo, type CliIo } from '../cli-io.js';
import { DEFAULT_SIGNATURE_HEADER, DEFAULT_TIMEOUT_SECONDS, deliverEvent, type Attempt, type DeliveryOptions } from '../delivery/deliver.js';
import { distinctEvents, EventSelectionError, listEventExamples, selectEventExamples } from './event-examples.js';
import { parseTargetUrl, TargetUrlError } from '../delivery/loopback-url.js';

export const EVENTS_USAGE = `Usage:
  numbers-api events send <url> [<example-name | event-type> ...] [options]
  numbers-api events list [--json]

events send POSTs events to a local handler the way the service's local fan-out agent does
(part 6): JSON with Content-Type: application/json; a 2xx answer is delivered; any other status,
a connection error or a timeout gets one retry; after that the event is logged and dropped.
Several events are sent at once, not one after another, as the agent does.

<url>      a loopback URL over http or https: 127.0.0.1, 0.0.0.0, localhost, ::1 or [::1]
           (e.g. http://127.0.0.1:3000/webhooks); anything else is refused
<example-name | event-type>
           an example event from the description (numbers-api events list), or a type such as
           message.received for every example of that type

Options:
  --file <path>               send your own event(s): a JSON object, or an array of them, each sent
                              (and signed) as compact JSON (repeatable)
  --all                       send every example event (each event id once)
  --secret <secret>           sign the raw body: HMAC-SHA256, hex, in ${DEFAULT_SIGNATURE_HEADER}
  --signature-header <name>   send the signature in this header instead (needs --secret)
  --bearer <token>            send Authorization: Bearer <token> (combinable with --secret)
  --timeout <seconds>         per attempt (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help                  this help

Exit code: 0 all delivered, 1 at least one event dropped, 2 bad usage.
For an https handler with a self-signed certificate, trust it with NODE_EXTRA_CA_CERTS=<cert.pem>.
`;

class UsageError extends Error {}

// An HTTP field name is a token (RFC 9110 §5.1).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

interface Outgoing {
  label: string;
  rawBody: string;
}

function readEventFile(file: string): Outgoing[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read --file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--file ${file} is not JSON: ${(error as Error).message}.`);
  }
  const events = Array.isArray(parsed) ? parsed : [parsed];
  if (events.length === 0) throw new UsageError(`--file ${file} holds an empty array: no event to send.`);
  return events.map((event, index) => {
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      throw new UsageError(`--file ${file}: ${Array.isArray(parsed) ? `item ${index}` : 'the content'} is not a JSON object (an event).`);
    }
    const type = typeof (event as { type?: unknown }).type === 'string' ? ` (${(event as { type: string }).type})` : '';
    const label = `${file}${Array.isArray(parsed) ? `[${index}]` : ''}${type}`;
    // Sent as compact JSON: the body that is signed is exactly the body that is sent.
    return { label, rawBody: JSON.stringify(event) };
  });
}

function parseSendArgs(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      file: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
      secret: { type: 'string' },
      'signature-header': { type: 'string' },
      bearer: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true as const };

  const [target, ...selectors] = positionals;
  if (!target) throw new UsageError('A target URL is needed, e.g. numbers-api events send http://127.0.0.1:3000/webhooks messageReceivedSms.');
  const url = parseTargetUrl(target);

  const options: DeliveryOptions = {};
  if (values.secret !== undefined) {
    if (values.secret === '') throw new UsageError('--secret must not be empty.');
    options.secret = values.secret;
  }
  if (values['signature-header'] !== undefined) {
    if (values.secret === undefined) throw new UsageError('--signature-header names the header of the signature, so it needs --secret.');
    if (!TOKEN.test(values['signature-header'])) {
      throw new UsageError(`--signature-header "${values['signature-header']}" is not a valid HTTP header name.`);
    }
    options.signatureHeader = values['signature-header'];
  }
  if (values.bearer !== undefined) {
    if (!/^\S+$/.test(values.bearer)) throw new UsageError('--bearer must be one token, without spaces, and not empty.');
    options.bearer = values.bearer;
  }
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (values.timeout.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(`--timeout is seconds per attempt, a number above 0; got "${values.timeout}".`);
    }
    options.timeoutSeconds = seconds;
  }

  if (values.all && selectors.length > 0) throw new UsageError('--all sends every example; do not name examples as well.');
  const outgoing: Outgoing[] = [];
  const examples = values.all ? distinctEvents(listEventExamples()) : selectors.length > 0 ? selectEventExamples(selectors) : [];
  for (const example of examples) outgoing.push({ label: `${example.name} (${example.type})`, rawBody: JSON.stringify(example.event) });
  for (const file of values.file ?? []) outgoing.push(...readEventFile(file));
  if (outgoing.length === 0) {
    throw new UsageError('Say which events to send: example names or event types, --file <path>, or --all (numbers-api events list shows the examples).');
  }
  return { help: false as const, url, options, outgoing };
}

function describeAttempt(attempt: Attempt): string {
  return attempt.status !== undefined ? `HTTP ${attempt.status} in ${attempt.ms} ms` : `${attempt.error} (after ${attempt.ms} ms)`;
}

async function send(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseSendArgs>;
  try {
    parsed = parseSendArgs(argv);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TargetUrlError || error instanceof EventSelectionError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`numbers-api events send: ${(error as Error).message}\n\nRun numbers-api events send --help for the options.\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    io.stdout(EVENTS_USAGE);
    return 0;
  }
  const { url, options, outgoing } = parsed;
  const target = url.href;

  // Rule 4 of part 6: deliveries to one target are independent, not serialized.
  const results = await Promise.all(
    outgoing.map(async ({ label, rawBody }) => {
      const result = await deliverEvent(url, rawBody, options, (attempt, number) => {
        if (attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300) return;
        if (number === 1) io.stdout(`${label}: attempt 1 failed, ${describeAttempt(attempt)}; retrying once.\n`);
      });
      const last = result.attempts[result.attempts.length - 1]!;
      if (result.delivered) {
        io.stdout(`${label}: delivered to ${target} (${describeAttempt(last)}${result.attempts.length > 1 ? ', on the retry' : ''}).\n`);
      } else {
        io.stderr(`${label}: dropped after ${result.attempts.length} attempts to ${target}; last: ${describeAttempt(last)}. Nothing is queued.\n`);
      }
      return result.delivered;
    }),
  );
  const dropped = results.filter((delivered) => !delivered).length;
  io.stdout(`${results.length - dropped} of ${results.length} event(s) delivered${dropped ? `, ${dropped} dropped` : ''}.\n`);
  return dropped === 0 ? 0 : 1;
}

function list(argv: string[], io: CliIo): number {
  let json = false;
  try {
    json = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { json: { type: 'boolean', default: false } } }).values.json;
  } catch (error) {
    io.stderr(`numbers-api events list: ${(error as Error).message}\n`);
    return 2;
  }
  const examples = listEventExamples();
  if (json) {
    io.stdout(`${JSON.stringify(examples.map(({ name, type, summary, event }) => ({ name, type, summary, event })), null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...examples.map((example) => example.name.length));
  for (const example of examples) io.stdout(`${example.name.padEnd(width)}  ${example.type.padEnd(22)}  ${example.summary}\n`);
  return 0;
}

export async function runEventsCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === 'send') return send(rest, io);
  if (subcommand === 'list') return list(rest, io);
  if (subcommand === '-h' || subcommand === '--help') {
    io.stdout(EVENTS_USAGE);
    return 0;
  }
  io.stderr(`numbers-api events: ${subcommand ? `unknown subcommand "${subcommand}"` : 'a subcommand is needed'}; use send or list.\n\n${EVENTS_USAGE}`);
  return 2;
}
