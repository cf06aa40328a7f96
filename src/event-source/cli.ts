// `numbers-api events send|list` (also `npm run events -- send …`): POST example events from the
// description, or the user's own JSON, to a local webhook or fan-out handler, by the local fan-out
// rules of part 6. Exit code: 0 every event delivered, 1 at least one dropped after its retry,
// 2 bad usage (flag, URL, file or event name).
import { readFileSync } from 'node:fs';
import { runCommand, runGroup, type CommandSpec } from '../cli/command.js';
import { processIo, type CliIo } from '../cli/io.js';
import { DELIVERY, type Parsed } from '../cli/options.js';
import { UsageError } from '../cli/usage-error.js';
import { deliveryOptions } from '../cli/validators.js';
import { deliverEvent, describeAttempt, isSuccess } from '../delivery/deliver.js';
import { distinctEvents, EventSelectionError, listEventExamples, selectEventExamples } from './event-examples.js';
import { parseTargetUrl, TargetUrlError } from '../delivery/loopback-url.js';

export const SEND = {
  name: 'numbers-api events send',
  usage: '<url> [<example-name | event-type> ...] [options]',
  about: `events send POSTs events to a local handler the way the service's local fan-out agent does
(part 6): JSON with Content-Type: application/json; a 2xx answer is delivered; any other status,
a connection error or a timeout gets one retry; after that the event is logged and dropped.
Several events are sent at once, not one after another, as the agent does.

<url>      a loopback URL over http or https: 127.0.0.1, 0.0.0.0, localhost, ::1 or [::1]
           (e.g. http://127.0.0.1:3000/webhooks); anything else is refused
<example-name | event-type>
           an example event from the description (numbers-api events list), or a type such as
           message.received for every example of that type`,
  options: {
    file: { type: 'string', value: '<path>', multiple: true, help: 'send your own event(s): a JSON object, or an array of them, each sent (and signed) as compact JSON (repeatable)' },
    all: { type: 'boolean', help: 'send every example event (each event id once)' },
    ...DELIVERY,
  },
  notes: `Exit code: 0 all delivered, 1 at least one event dropped, 2 bad usage.
For an https handler with a self-signed certificate, trust it with NODE_EXTRA_CA_CERTS=<cert.pem>.`,
  positionals: true,
} as const satisfies CommandSpec;

export const LIST = {
  name: 'numbers-api events list',
  usage: '[--json]',
  about: 'The example events of the description that events send can deliver: name, type, summary.',
  options: { json: { type: 'boolean', help: 'print them as JSON, each with its event' } },
} as const satisfies CommandSpec;

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

function outgoingEvents({ values, positionals }: Parsed<typeof SEND.options>) {
  const [target, ...selectors] = positionals;
  if (!target) throw new UsageError('A target URL is needed, e.g. numbers-api events send http://127.0.0.1:3000/webhooks messageReceivedSms.');
  const url = parseTargetUrl(target);
  const options = deliveryOptions(values);
  if (values.all && selectors.length > 0) throw new UsageError('--all sends every example; do not name examples as well.');
  const outgoing: Outgoing[] = [];
  const examples = values.all ? distinctEvents(listEventExamples()) : selectors.length > 0 ? selectEventExamples(selectors) : [];
  for (const example of examples) outgoing.push({ label: `${example.name} (${example.type})`, rawBody: JSON.stringify(example.event) });
  for (const file of values.file ?? []) outgoing.push(...readEventFile(file));
  if (outgoing.length === 0) {
    throw new UsageError('Say which events to send: example names or event types, --file <path>, or --all (numbers-api events list shows the examples).');
  }
  return { url, options, outgoing };
}

async function send(parsed: Parsed<typeof SEND.options>, io: CliIo): Promise<number> {
  const { url, options, outgoing } = outgoingEvents(parsed);
  const target = url.href;

  // Rule 4 of part 6: deliveries to one target are independent, not serialized.
  const results = await Promise.all(
    outgoing.map(async ({ label, rawBody }) => {
      const result = await deliverEvent(url, rawBody, options, (attempt, number) => {
        if (number === 1 && !isSuccess(attempt)) io.stdout(`${label}: attempt 1 failed, ${describeAttempt(attempt)}; retrying once.\n`);
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

function list({ values }: Parsed<typeof LIST.options>, io: CliIo): number {
  const examples = listEventExamples();
  if (values.json) {
    io.stdout(`${JSON.stringify(examples.map(({ name, type, summary, event }) => ({ name, type, summary, event })), null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...examples.map((example) => example.name.length));
  for (const example of examples) io.stdout(`${example.name.padEnd(width)}  ${example.type.padEnd(22)}  ${example.summary}\n`);
  return 0;
}

export const EVENTS = {
  name: 'numbers-api events',
  commands: {
    send: { summary: 'POST example events (or your own JSON) to a local webhook or fan-out handler', run: (argv: string[], io: CliIo) => runCommand(SEND, argv, io, (parsed) => send(parsed, io), process.env, [TargetUrlError, EventSelectionError]) },
    list: { summary: 'list the example events that events send can deliver', run: (argv: string[], io: CliIo) => runCommand(LIST, argv, io, (parsed) => list(parsed, io)) },
  },
};

export async function runEventsCli(argv: string[], io: CliIo = processIo): Promise<number> {
  return runGroup(EVENTS, argv, io);
}
