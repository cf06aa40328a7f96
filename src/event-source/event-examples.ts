// The example events the event source can send, read from the bundled descriptions: the named
// examples of the OpenAPI `webhooks` deliveries (every example event, by its component name), then
// any other named example of the AsyncAPI messages (stream, webhook and local fan-out). A name is
// listed once; the first place it is found wins.
import { loadAsyncApi, loadOpenApi, resolveRef, type JsonObject } from '../contract/generated-files.js';

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

function fromOpenApiWebhooks(openapi: JsonObject): EventExample[] {
  const examples: EventExample[] = [];
  for (const [webhook, rawItem] of Object.entries<JsonObject>(openapi.webhooks ?? {})) {
    const item = resolveRef(openapi, rawItem);
    for (const operation of Object.values<JsonObject>(item ?? {})) {
      const media = isObject(operation) ? resolveRef(openapi, operation.requestBody)?.content?.['application/json'] : undefined;
      for (const [name, raw] of Object.entries<JsonObject>(media?.examples ?? {})) {
        const example = resolveRef(openapi, raw);
        if (!isObject(example?.value)) continue;
        examples.push({
          name,
          type: String(example.value.type),
          summary: String(example.summary ?? ''),
          event: example.value,
          source: `openapi webhooks.${webhook}`,
        });
      }
    }
  }
  return examples;
}

function fromAsyncApiMessages(asyncapi: JsonObject): EventExample[] {
  const examples: EventExample[] = [];
  for (const [messageName, raw] of Object.entries<JsonObject>(asyncapi.components?.messages ?? {})) {
    const message = resolveRef(asyncapi, raw);
    for (const example of message?.examples ?? []) {
      // Only event envelopes: the events/wait request body is a message too, but not an event.
      if (!isObject(example?.payload) || example.payload.object !== 'event' || typeof example.name !== 'string') continue;
      examples.push({
        name: example.name,
        type: String(example.payload.type),
        summary: String(example.summary ?? ''),
        event: example.payload,
        source: `asyncapi components.messages.${messageName}`,
      });
    }
  }
  return examples;
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
