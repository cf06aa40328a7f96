// Part 6 events are defined once: the event schema reached from the OpenAPI `webhooks` delivery,
// from the POST /api/v1/events/wait 200 response and from the AsyncAPI messages is one definition,
// written in spec/schemas/events/ and nowhere else. The bundles are read from generated/; the
// source files are read only to prove where the bundled definitions come from and that no copy
// exists beside them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { followRef, loadAsyncApi, loadDereferencedOpenApi, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';

const specDir = path.join(repoRoot, 'spec');
const eventSchemaDir = path.join(specDir, 'schemas/events');
const eventExampleDir = path.join(specDir, 'examples/events');
const UNION = 'AnyEvent';
const UNION_REF = `#/components/schemas/${UNION}`;

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every object node of a value, with its JSON-ish location. */
function* objectNodes(value: unknown, at: string): Generator<[JsonObject, string]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* objectNodes(item, `${at}/${i}`);
  } else if (isObject(value)) {
    yield [value, at];
    for (const [key, child] of Object.entries(value)) yield* objectNodes(child, `${at}/${key}`);
  }
}

/** Names of the component schemas reachable from `name` through local `$ref`s (no assertions). */
function schemaClosureOf(document: JsonObject, name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (schemaName: string): void => {
    if (seen.has(schemaName) || !document.components?.schemas?.[schemaName]) return;
    seen.add(schemaName);
    for (const [node] of objectNodes(document.components.schemas[schemaName], '')) {
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) visit(node.$ref.slice('#/components/schemas/'.length));
    }
  };
  visit(name);
  return seen;
}

/** Names of the component schemas reachable from `name`, asserting that every reference resolves. */
function schemaClosure(document: JsonObject, name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (schemaName: string): void => {
    if (seen.has(schemaName)) return;
    seen.add(schemaName);
    const schema = document.components.schemas[schemaName];
    expect(schema, `#/components/schemas/${schemaName}`).toBeDefined();
    for (const [node] of objectNodes(schema, '')) {
      const ref = node.$ref;
      if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) visit(ref.slice('#/components/schemas/'.length));
    }
  };
  visit(name);
  return seen;
}

/**
 * A source schema file as the bundler would write it: each relative `$ref` to another schema file
 * becomes `#/components/schemas/<basename>` (the house rule: a component is named by its file).
 */
function sourceAsComponent(file: string): JsonObject {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && !child.startsWith('#')) {
        const target = path.resolve(path.dirname(file), child);
        out[key] = `#/components/schemas/${path.basename(target, path.extname(target))}`;
      } else {
        out[key] = rewrite(child);
      }
    }
    return out;
  };
  return rewrite(parseYaml(readFileSync(file, 'utf8'))) as JsonObject;
}

/** The one file under spec/schemas/ named `<name>.yaml`. */
function sourceFileOf(name: string): string {
  const matches = yamlFiles(path.join(specDir, 'schemas')).filter((f) => path.basename(f, '.yaml') === name);
  expect(matches.map((f) => path.relative(repoRoot, f)), `source of ${name}`).toHaveLength(1);
  return matches[0]!;
}

const eventSchemaNames = readdirSync(eventSchemaDir).filter((f) => f.endsWith('.yaml')).map((f) => path.basename(f, '.yaml'));
const documentedTypes = ['message.received', 'message.status_changed', 'call.status_changed', 'webhook.ping'];
/** The event definitions: AnyEvent and the event-directory schemas it reaches. */
const eventDefinitionNames = [...schemaClosureOf(openapi, UNION)].filter((name) => eventSchemaNames.includes(name));
const SCHEMA_KEYWORDS = ['type', 'properties', 'allOf', 'anyOf', 'oneOf', 'enum', 'const'];

/** A schema node that defines (part of) an event: the envelope, a per-type schema or a payload. */
function looksLikeEventSchema(node: JsonObject): string | null {
  if (!SCHEMA_KEYWORDS.some((keyword) => keyword in node)) return null;
  const properties = isObject(node.properties) ? node.properties : {};
  if (isObject(properties.object) && properties.object.const === 'event') return '`object` const "event" (the envelope)';
  if (isObject(properties.type) && documentedTypes.includes(properties.type.const)) return `\`type\` const "${properties.type.const}"`;
  if (typeof node.title === 'string' && eventDefinitionNames.includes(node.title)) return `title "${node.title}"`;
  if (['messageId', 'groupId', 'replyToId', 'reaction'].every((key) => key in properties)) return 'the message.received data fields';
  if (['previousState', 'terminationType'].every((key) => key in properties)) return 'the call.status_changed data fields';
  return null;
}

/** An event instance (an example value) rather than a schema. */
function looksLikeEventValue(node: JsonObject): boolean {
  return node.object === 'event' && typeof node.type === 'string' && 'data' in node;
}

describe('one event schema for every channel', () => {
  it('the OpenAPI webhook delivery, events/wait 200 and every AsyncAPI event message reference AnyEvent', () => {
    const webhook = followRef(openapi, openapi.webhooks.event).post.requestBody.content['application/json'].schema;
    const wait = openapi.paths['/api/v1/events/wait'].post.responses['200'].content['application/json'].schema;
    expect(webhook).toEqual({ $ref: UNION_REF });
    expect(wait).toEqual({ $ref: UNION_REF });
    const channelMessages = Object.entries(asyncapi.channels as Record<string, JsonObject>).flatMap(([channel, c]) =>
      Object.entries(c.messages as Record<string, JsonObject>).map(([name, m]) => [`${channel}/${name}`, followRef(asyncapi, m)] as const),
    );
    const eventMessages = channelMessages.filter(([, message]) => message.name === 'event');
    // The stream, the wait reply, the webhook delivery and the fan-out delivery.
    expect(eventMessages.map(([where]) => where).sort()).toEqual([
      'accountEventStream/streamEvent',
      'eventsWait/waitedEvent',
      'localFanOutTarget/localFanOutEvent',
      'webhookSubscription/webhookEvent',
    ]);
    for (const [where, message] of eventMessages) expect(message.payload, where).toEqual({ $ref: UNION_REF });
  });

  it('AnyEvent and every schema it reaches are deep-equal in the OpenAPI and AsyncAPI bundles', () => {
    const inOpenApi = schemaClosure(openapi, UNION);
    const inAsyncApi = schemaClosure(asyncapi, UNION);
    expect([...inAsyncApi].sort()).toEqual([...inOpenApi].sort());
    for (const name of inOpenApi) {
      expect(asyncapi.components.schemas[name], name).toEqual(openapi.components.schemas[name]);
    }
    // The union reaches the envelope, the four documented types and the unknown-type branch.
    for (const name of ['Event', 'MessageReceivedEvent', 'MessageStatusChangedEvent', 'CallStatusChangedEvent', 'WebhookPingEvent', 'UnknownEvent']) {
      expect(inOpenApi.has(name), name).toBe(true);
    }
  });

  it('each of those bundled schemas is exactly one source file, and the event ones live in spec/schemas/events/', () => {
    for (const name of schemaClosure(openapi, UNION)) {
      const file = sourceFileOf(name);
      const expected = sourceAsComponent(file);
      expect(openapi.components.schemas[name], `${name} (OpenAPI) vs ${path.relative(repoRoot, file)}`).toEqual(expected);
      expect(asyncapi.components.schemas[name], `${name} (AsyncAPI) vs ${path.relative(repoRoot, file)}`).toEqual(expected);
      if (eventSchemaNames.includes(name)) expect(path.dirname(file)).toBe(eventSchemaDir);
    }
  });

  it('dereferenced, the webhook delivery and events/wait 200 schemas are identical', () => {
    const dereferenced = loadDereferencedOpenApi();
    const webhook = dereferenced.webhooks.event.post.requestBody.content['application/json'].schema;
    const wait = dereferenced.paths['/api/v1/events/wait'].post.responses['200'].content['application/json'].schema;
    expect(webhook).toEqual(wait);
    expect(webhook.title).toBe(UNION);
  });
});

describe('no copy of an event schema or example', () => {
  it('no file of spec/ outside spec/schemas/events/ defines an event schema', () => {
    const copies: string[] = [];
    for (const file of yamlFiles(specDir)) {
      if (path.dirname(file) === eventSchemaDir) continue;
      const document = parseYaml(readFileSync(file, 'utf8'));
      for (const [node, at] of objectNodes(document, '#')) {
        const why = looksLikeEventSchema(node);
        if (why) copies.push(`${path.relative(repoRoot, file)} ${at}: ${why}`);
      }
    }
    expect(copies).toEqual([]);
  });

  it('no event example value is written outside spec/examples/events/ (AsyncAPI examples reference those files)', () => {
    const copies: string[] = [];
    for (const file of yamlFiles(specDir)) {
      if (path.dirname(file) === eventExampleDir) continue;
      for (const [node, at] of objectNodes(parseYaml(readFileSync(file, 'utf8')), '#')) {
        if (looksLikeEventValue(node)) copies.push(`${path.relative(repoRoot, file)} ${at}`);
      }
    }
    expect(copies).toEqual([]);
  });

  it('in both bundles, event schemas exist only as the shared components', () => {
    const shared = schemaClosure(openapi, UNION);
    for (const [label, document] of [['OpenAPI', openapi], ['AsyncAPI', asyncapi]] as const) {
      const copies: string[] = [];
      for (const [key, value] of Object.entries(document)) {
        if (key === 'components') continue;
        for (const [node, at] of objectNodes(value, `#/${key}`)) if (looksLikeEventSchema(node)) copies.push(at);
      }
      for (const [type, map] of Object.entries(document.components as Record<string, JsonObject>)) {
        if (type === 'examples') continue;
        for (const [name, component] of Object.entries(map)) {
          // The shared event schemas themselves, and the other schemas of spec/schemas/events/.
          if (type === 'schemas' && (shared.has(name) || eventSchemaNames.includes(name))) continue;
          for (const [node, at] of objectNodes(component, `#/components/${type}/${name}`)) {
            // Message examples carry event values, not schemas; skip them.
            if (at.includes('/examples/')) continue;
            if (looksLikeEventSchema(node)) copies.push(at);
          }
        }
      }
      expect(copies, label).toEqual([]);
    }
  });

  it('every AsyncAPI event example is one of the event example files (same value as in the OpenAPI bundle)', () => {
    const sources = Object.entries(openapi.components.examples as Record<string, JsonObject>).filter(([, e]) => looksLikeEventValue(e.value));
    expect(sources.length).toBe(readdirSync(eventExampleDir).filter((f) => f.endsWith('.yaml')).length);
    for (const [name, message] of Object.entries(asyncapi.components.messages as Record<string, JsonObject>)) {
      for (const example of message.examples ?? []) {
        if (!looksLikeEventValue(example.payload)) continue;
        const match = sources.find(([, source]) => JSON.stringify(source.value) === JSON.stringify(example.payload));
        expect(match, `${name} example ${example.name}`).toBeDefined();
      }
    }
  });
});
