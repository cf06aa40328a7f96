// Part 6 (events): every event example validates against the envelope and against its own type's
// schema; an event of an unknown type still validates (the envelope and the union stay open); and
// the rules part 6 states exactly are enforced by the schemas (negative cases must fail).
// Everything is read from the bundled description (generated/openapi.json).
import { describe, expect, it } from 'vitest';
import { contractValidator } from '../src/contract/contract-validator.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { followRef, loadOpenApi, type JsonObject } from './helpers/contract.js';

const openapi = loadOpenApi();
const validator = contractValidator(openapi);
const schemas = openapi.components.schemas as Record<string, JsonObject>;

const envelope = '#/components/schemas/Event';
const anyEvent = '#/components/schemas/AnyEvent';
const unknownEvent = '#/components/schemas/UnknownEvent';

/** `type` value -> component name of its schema, read from the branches of `KnownEvent` (AnyEvent's first branch). */
function typeSchemas(): Map<string, string> {
  const byType = new Map<string, string>();
  for (const branch of schemas.KnownEvent!.oneOf as JsonObject[]) {
    const name = (branch.$ref as string).replace('#/components/schemas/', '');
    const typeConst = (schemas[name]!.allOf as JsonObject[]).map((part) => part.properties?.type?.const).find(Boolean);
    if (typeConst) byType.set(typeConst as string, name);
  }
  return byType;
}
const schemaOfType = typeSchemas();

/** The event examples: every named example of the webhook delivery and of events/wait 200. */
function eventExamples(): Map<string, JsonObject> {
  const holders = [
    followRef(openapi, openapi.webhooks.event).post.requestBody.content['application/json'],
    openapi.paths['/api/v1/events/wait'].post.responses['200'].content['application/json'],
  ];
  const examples = new Map<string, JsonObject>();
  for (const holder of holders) {
    for (const [name, raw] of Object.entries(holder.examples as Record<string, JsonObject>)) {
      examples.set(name, followRef(openapi, raw).value as JsonObject);
    }
  }
  return examples;
}
const examples = eventExamples();
const ofType = (type: string) => [...examples.values()].filter((event) => event.type === type);

function expectValid(pointer: string, value: unknown, label: string): void {
  expect(validator.value(pointer, value).map(describeVerdict), label).toEqual([]);
}

describe('event schemas (part 6)', () => {
  it('AnyEvent is KnownEvent (one branch per documented type) or UnknownEvent, which excludes exactly those types', () => {
    expect((schemas.AnyEvent!.oneOf as JsonObject[]).map((b) => b.$ref)).toEqual(['#/components/schemas/KnownEvent', '#/components/schemas/UnknownEvent']);
    expect([...schemaOfType.keys()].sort()).toEqual(['call.status_changed', 'message.received', 'message.status_changed', 'webhook.ping']);
    // Each branch writes its `type` as `const` and as a one-value `enum` (for generators that read
    // only one of them): the two say the same.
    for (const [type, name] of schemaOfType) {
      const typeSchema = (schemas[name]!.allOf as JsonObject[]).map((part) => part.properties?.type).find(Boolean);
      expect(typeSchema.enum, name).toEqual([type]);
    }
    const excluded = (schemas.UnknownEvent!.allOf as JsonObject[]).map((part) => part.properties?.type?.not?.enum).find(Boolean);
    expect([...excluded].sort()).toEqual([...schemaOfType.keys()].sort());
    // The EventType catalog names the same documented types and stays open to others.
    const catalog = (schemas.EventType!.anyOf as JsonObject[]).filter((b) => 'const' in b).map((b) => b.const);
    expect(catalog.sort()).toEqual([...schemaOfType.keys()].sort());
    expect((schemas.EventType!.anyOf as JsonObject[]).some((b) => !('const' in b) && b.type === 'string')).toBe(true);
  });

  it('the envelope requires every field of part 6, with object "event" and version 1', () => {
    expect([...schemas.Event!.required].sort()).toEqual(['createdAt', 'data', 'id', 'object', 'relatedObject', 'type', 'version']);
    expect(schemas.Event!.properties.object.const).toBe('event');
    expect(schemas.Event!.properties.version).toMatchObject({ type: 'integer', const: 1 });
    expect(schemas.Event!.properties.createdAt.format).toBe('date-time');
  });

  it('TerminationType has exactly the five values of part 3', () => {
    expect([...schemas.TerminationType!.enum].sort()).toEqual(['busy', 'canceled', 'completed', 'failed', 'no-answer']);
  });
});

describe('event examples (part 6)', () => {
  it('the webhook delivery and events/wait carry the event examples', () => {
    expect(examples.size).toBeGreaterThanOrEqual(15);
  });

  for (const [name, event] of examples) {
    it(`${name} validates against the envelope, AnyEvent and its own type's schema`, () => {
      expectValid(envelope, event, `${name} against Event`);
      expectValid(anyEvent, event, `${name} against AnyEvent`);
      const own = schemaOfType.get(event.type as string) ?? 'UnknownEvent';
      expectValid(`#/components/schemas/${own}`, event, `${name} against ${own}`);
    });
  }

  it('cover every documented type and an unknown one', () => {
    for (const type of schemaOfType.keys()) expect(ofType(type).length, type).toBeGreaterThan(0);
    const unknown = [...examples.values()].filter((event) => !schemaOfType.has(event.type as string));
    expect(unknown.length).toBeGreaterThan(0);
    for (const event of unknown) expectValid(unknownEvent, event, `unknown type ${event.type}`);
  });

  it('cover the message.received scenarios: one-to-one SMS, WhatsApp group, iMessage reaction and reply, media', () => {
    const data = ofType('message.received').map((event) => event.data as JsonObject);
    expect(data.some((d) => d.channel === 'sms' && d.groupId === null && typeof d.to === 'string' && d.media.length === 0)).toBe(true);
    expect(data.some((d) => d.channel === 'whatsapp' && typeof d.groupId === 'string' && d.to === null)).toBe(true);
    expect(data.some((d) => d.channel === 'imessage' && typeof d.reaction === 'string' && d.body === '' && typeof d.replyToId === 'string')).toBe(true);
    expect(data.some((d) => d.channel === 'imessage' && d.reaction === null && typeof d.replyToId === 'string' && d.body !== '')).toBe(true);
    expect(data.some((d) => d.media.length > 0)).toBe(true);
  });

  it('cover every call state, and Terminated with each terminationType', () => {
    const calls = ofType('call.status_changed').map((event) => event.data as JsonObject);
    const states = new Set(calls.map((d) => d.status.state));
    expect([...states].sort()).toEqual([...schemas.CallState!.enum].sort());
    const endings = new Set(calls.filter((d) => d.status.state === 'Terminated').map((d) => d.terminationType));
    expect([...endings].sort()).toEqual([...schemas.TerminationType!.enum].sort());
  });
});

describe('part 6 rules the schemas enforce (each must fail)', () => {
  const sms = () => structuredClone(ofType('message.received').find((e) => e.data.channel === 'sms' && e.data.media.length === 0)!);
  const group = () => structuredClone(ofType('message.received').find((e) => e.data.groupId !== null)!);
  const terminated = () => structuredClone(ofType('call.status_changed').find((e) => e.data.status.state === 'Terminated')!);
  const ping = () => structuredClone(ofType('webhook.ping')[0]!);
  const unknown = () => structuredClone([...examples.values()].find((e) => !schemaOfType.has(e.type as string))!);

  const cases: Array<[string, () => JsonObject, string]> = [
    ['`to` non-null together with `groupId`', () => { const e = group(); e.data.to = '+14155550142'; return e; }, 'MessageReceivedEvent'],
    ['`to` null on a one-to-one message', () => { const e = sms(); e.data.to = null; return e; }, 'MessageReceivedEvent'],
    ['a group message that is not whatsapp', () => { const e = group(); e.data.channel = 'imessage'; return e; }, 'MessageReceivedEvent'],
    ['a reaction with a non-empty body', () => { const e = sms(); e.data.channel = 'imessage'; e.data.reaction = '👍'; return e; }, 'MessageReceivedEvent'],
    ['a data field of the table missing (`reaction`)', () => { const e = sms(); delete e.data.reaction; return e; }, 'MessageReceivedEvent'],
    ['a channel outside sms, imessage, rcs, whatsapp', () => { const e = sms(); e.data.channel = 'mms'; return e; }, 'MessageReceivedEvent'],
    ['`source` outside external, internal', () => { const e = sms(); e.data.source = 'carrier'; return e; }, 'MessageReceivedEvent'],
    ['`from` not E.164', () => { const e = sms(); e.data.from = '4155550123'; return e; }, 'MessageReceivedEvent'],
    ['an inbound attachment with an `originalUrl`', () => {
      const e = sms();
      e.data.media = [{ id: 'med_1', url: 'https://media.example.com/m/1', contentType: 'image/jpeg', originalUrl: 'https://example.org/a.jpg' }];
      return e;
    }, 'MessageReceivedEvent'],
    ['message.received whose relatedObject is not a message', () => { const e = sms(); e.relatedObject.type = 'call'; return e; }, 'MessageReceivedEvent'],
    ['Terminated without terminationType', () => { const e = terminated(); delete e.data.terminationType; return e; }, 'CallStatusChangedEvent'],
    ['Terminated with terminationType null', () => { const e = terminated(); e.data.terminationType = null; return e; }, 'CallStatusChangedEvent'],
    ['a terminationType outside the five', () => { const e = terminated(); e.data.terminationType = 'hung-up'; return e; }, 'CallStatusChangedEvent'],
    ['a call status without a label', () => { const e = terminated(); delete e.data.status.label; return e; }, 'CallStatusChangedEvent'],
    ['webhook.ping with a relatedObject', () => { const e = ping(); e.relatedObject = { id: 'wh_3b7Zq9', type: 'webhook', url: null }; return e; }, 'WebhookPingEvent'],
    ['webhook.ping with data other than {}', () => { const e = ping(); e.data = { hello: 'world' }; return e; }, 'WebhookPingEvent'],
  ];
  for (const [label, make, own] of cases) {
    it(`${label}: rejected by ${own} and by AnyEvent`, () => {
      const event = make();
      expect(validator.accepts(`#/components/schemas/${own}`, event)).toBe(false);
      expect(validator.accepts(anyEvent, event)).toBe(false);
    });
  }

  const envelopeCases: Array<[string, () => JsonObject]> = [
    ['`object` other than "event"', () => { const e = unknown(); e.object = 'message'; return e; }],
    ['`version` 2', () => { const e = unknown(); e.version = 2; return e; }],
    ['`version` as a string', () => { const e = unknown(); e.version = '1'; return e; }],
    ['`createdAt` not ISO 8601', () => { const e = unknown(); e.createdAt = '21/11/2026 17:10'; return e; }],
    ['no `data`', () => { const e = unknown(); delete e.data; return e; }],
    ['no `relatedObject` (it is null, never absent)', () => { const e = unknown(); delete e.relatedObject; return e; }],
    ['a relatedObject without `url`', () => { const e = unknown(); delete e.relatedObject.url; return e; }],
  ];
  for (const [label, make] of envelopeCases) {
    it(`${label}: rejected by the envelope, even for an unknown type`, () => {
      const event = make();
      expect(validator.accepts(envelope, event)).toBe(false);
      expect(validator.accepts(anyEvent, event)).toBe(false);
    });
  }

  it('a documented type cannot pass as an unknown one: a broken message.received fails AnyEvent', () => {
    const event = sms();
    delete event.data.messageId;
    expect(validator.accepts(envelope, event)).toBe(true); // the envelope alone is satisfied ...
    expect(validator.accepts(unknownEvent, event)).toBe(false); // ... but the type is a documented one
    expect(validator.accepts(anyEvent, event)).toBe(false);
  });
});
