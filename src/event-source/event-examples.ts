// The example events the event source can send, read from the bundled descriptions: the named
// examples of the OpenAPI `webhooks` deliveries (every example event, by its component name), then
// any other named example of the AsyncAPI messages (stream, webhook and local fan-out). A name is
// listed once; the first place it is found wins.
import { listOperations, loadAsyncApi, loadOpenApi, resolveRef, type JsonObject } from '../contract/generated-files.js';

export interface EventExample {
  name: string;
  /** The event's `type`, e.g. `message.received`. */
  type: string;
  summary: string;
  /** The event itself (the envelope of part 6). */
  event: JsonObject;
  /** Where it was found, e.g. `openapi webhooks.event`. */
  source: string;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An example event as listed, from wherever it was found. */
function exampleOf(name: string, event: JsonObject, summary: unknown, source: string): EventExample {
  return { name, type: String(event.type), summary: String(summary ?? ''), event, source };
}

function fromOpenApiWebhooks(openapi: JsonObject): EventExample[] {
  return listOperations(openapi, ['webhooks']).flatMap(({ path: webhook, operation }) =>
    Object.entries<JsonObject>(resolveRef(openapi, operation.requestBody)?.content?.['application/json']?.examples ?? {}).flatMap(([name, raw]) => {
      const example = resolveRef(openapi, raw);
      return isObject(example?.value) ? [exampleOf(name, example.value, example.summary, `openapi webhooks.${webhook}`)] : [];
    }),
  );
}

function fromAsyncApiMessages(asyncapi: JsonObject): EventExample[] {
  return Object.entries<JsonObject>(asyncapi.components?.messages ?? {}).flatMap(([messageName, raw]) =>
    ((resolveRef(asyncapi, raw)?.examples ?? []) as JsonObject[])
      // Only event envelopes: the events/wait request body is a message too, but not an event.
      .filter((example) => isObject(example?.payload) && example.payload.object === 'event' && typeof example.name === 'string')
      .map((example) => exampleOf(example.name, example.payload, example.summary, `asyncapi components.messages.${messageName}`)),
  );
}

/** Every example event, each name once, OpenAPI webhooks first. */
export function listEventExamples(openapi: JsonObject = loadOpenApi(), asyncapi: JsonObject = loadAsyncApi()): EventExample[] {
  const byName = new Map<string, EventExample>();
  for (const example of [...fromOpenApiWebhooks(openapi), ...fromAsyncApiMessages(asyncapi)]) {
    if (!byName.has(example.name)) byName.set(example.name, example);
  }
  return [...byName.values()];
}

/**
 * The examples with each event once: an AsyncAPI example can show an event already listed with
 * other headers (`messageReceivedMmsUnsigned` is `messageReceivedMms` unsigned), and sending both
 * would deliver one event id twice. The first listed wins.
 */
export function distinctEvents(examples: EventExample[]): EventExample[] {
  const seen = new Set<unknown>();
  return examples.filter((example) => {
    const id = example.event.id ?? example.name;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export class EventSelectionError extends Error {}

/**
 * The examples named by `selectors`, in the order given: each selector is an example name
 * (`messageReceivedSms`) or an event type (`message.received`, every distinct event of that type).
 */
export function selectEventExamples(selectors: string[], examples: EventExample[] = listEventExamples()): EventExample[] {
  const chosen: EventExample[] = [];
  for (const selector of selectors) {
    const byName = examples.find((example) => example.name === selector);
    const matches = byName ? [byName] : distinctEvents(examples.filter((example) => example.type === selector));
    if (matches.length === 0) {
      const types = [...new Set(examples.map((example) => example.type))].join(', ');
      throw new EventSelectionError(
        `No example event is named or typed "${selector}". Types: ${types}. Run \`numbers-api events list\` for the names.`,
      );
    }
    for (const match of matches) if (!chosen.includes(match) && (byName || !chosen.some((other) => other.event.id === match.event.id))) chosen.push(match);
  }
  return chosen;
}
