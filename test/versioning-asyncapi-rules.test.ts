// Classification rules of the contract diff (scripts/diff/), AsyncAPI 3.0 side: what the service
// sends is read by consumers (event side); what it receives is written by clients (request side).
import { describe, expect, it } from 'vitest';
import { type Change, diffContracts } from '../scripts/diff/index.js';
import { only, type Json } from './helpers/diff-changes.js';

function events(edit: (doc: Json) => void = () => {}): Json {
  const doc: Json = {
    asyncapi: '3.0.0',
    info: { title: 'Thing events', version: '1.0.0', 'x-api-version': 'v1' },
    channels: {
      thingEvents: {
        address: '/things/events',
        messages: { thingChanged: { $ref: '#/components/messages/thingChanged' } },
      },
      commands: {
        address: '/things/commands',
        messages: {
          command: { $ref: '#/components/messages/command' },
          commandResult: { $ref: '#/components/messages/commandResult' },
        },
      },
      experimental: {
        address: null,
        'x-inferred': true,
        'x-inferred-reason': 'Not shown.',
        messages: { probe: { payload: { type: 'object', properties: { at: { type: 'string' } } } } },
      },
    },
    operations: {
      sendThingChanged: {
        action: 'send',
        channel: { $ref: '#/channels/thingEvents' },
        messages: [{ $ref: '#/channels/thingEvents/messages/thingChanged' }],
      },
      receiveCommand: {
        action: 'receive',
        channel: { $ref: '#/channels/commands' },
        messages: [{ $ref: '#/channels/commands/messages/command' }],
        reply: { channel: { $ref: '#/channels/commands' }, messages: [{ $ref: '#/channels/commands/messages/commandResult' }] },
      },
    },
    components: {
      messages: {
        thingChanged: { contentType: 'application/json', payload: { $ref: '#/components/schemas/ThingChangedEvent' } },
        command: { payload: { type: 'object', required: ['action'], properties: { action: { type: 'string', enum: ['start', 'stop'] }, note: { type: 'string' } } } },
        commandResult: { payload: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } } },
      },
      schemas: {
        ThingChangedEvent: {
          type: 'object',
          required: ['id', 'type', 'version', 'data'],
          properties: {
            id: { type: 'string' },
            type: { type: 'string', anyOf: [{ const: 'thing.changed' }, { const: 'thing.removed' }, { type: 'string' }] },
            version: { type: 'integer', const: 1 },
            data: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, state: { type: 'string', enum: ['on', 'off'] } },
            },
          },
        },
      },
    },
  };
  edit(doc);
  return doc;
}

const schema = (doc: Json) => doc.components.schemas.ThingChangedEvent;

function diff(edit: (doc: Json) => void): Change[] {
  return diffContracts({ asyncapi: events() }, { asyncapi: events(edit) }).changes;
}

describe('event payloads (the service sends; consumers read)', () => {
  it('an unchanged document has no changes', () => {
    expect(diff(() => {})).toEqual([]);
  });

  it('a removed event payload field is breaking', () => {
    const c = only(diff((d) => delete schema(d).properties.data.properties.state), 'property-removed');
    expect(c).toMatchObject({
      classification: 'breaking',
      document: 'asyncapi',
      directions: ['event'],
      in: 'previous',
      pointer: '/components/schemas/ThingChangedEvent/properties/data/properties/state',
      affects: ['operation sendThingChanged · message thingChanged payload'],
    });
    expect(c.message).toContain('data.state');
  });

  it('an added event payload field is non-breaking', () => {
    const changes = diff((d) => (schema(d).properties.data.properties.colour = { type: 'string' }));
    expect(only(changes, 'property-added')).toMatchObject({ classification: 'non-breaking', directions: ['event'] });
    expect(changes).toHaveLength(1);
  });

  it('a payload given as a Multi Format Schema Object is compared by its schema', () => {
    const multi = (edit: (payload: Json) => void) => (d: Json) => {
      const payload = { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } } };
      edit(payload);
      d.components.messages.thingChanged.payload = { schemaFormat: 'application/schema+json;version=draft-07', schema: payload };
    };
    const changes = diffContracts({ asyncapi: events(multi(() => {})) }, { asyncapi: events(multi((p) => delete p.properties.size)) }).changes;
    expect(only(changes, 'property-removed')).toMatchObject({ classification: 'breaking', pointer: '/components/messages/thingChanged/payload/schema/properties/size' });
  });

  it('an event field that becomes nullable is breaking', () => {
    expect(only(diff((d) => (schema(d).properties.data.properties.name.type = ['string', 'null'])), 'became-nullable').classification).toBe('breaking');
  });

  it('a value added to a closed enum in an event is breaking; to an open one it is not', () => {
    expect(only(diff((d) => schema(d).properties.data.properties.state.enum.push('dimmed')), 'enum-value-added').classification).toBe('breaking');
    expect(only(diff((d) => schema(d).properties.type.anyOf.splice(2, 0, { const: 'thing.moved' })), 'open-enum-value-added').classification).toBe('non-breaking');
  });

  it('an event field no longer required is breaking', () => {
    expect(only(diff((d) => (schema(d).properties.data.required = [])), 'became-optional').classification).toBe('breaking');
  });

  it('a changed envelope version (const) is breaking', () => {
    const changes = diff((d) => (schema(d).properties.version.const = 2));
    expect(changes.filter((c) => c.classification === 'breaking').map((c) => c.code).sort()).toEqual(['enum-value-added']);
    expect(only(changes, 'enum-value-removed').classification).toBe('non-breaking');
  });
});

describe('messages the service receives (clients write them) and its replies', () => {
  it('a new required field in a received message is breaking; an optional one is not', () => {
    const required = only(diff((d) => {
      const p = d.components.messages.command.payload;
      p.properties.reason = { type: 'string' };
      p.required.push('reason');
    }), 'required-property-added');
    expect(required).toMatchObject({ classification: 'breaking', directions: ['request'], affects: ['operation receiveCommand · message command payload'] });
    expect(only(diff((d) => (d.components.messages.command.payload.properties.reason = { type: 'string' })), 'property-added').classification).toBe('non-breaking');
  });

  it('a narrowed enum in a received message is breaking', () => {
    expect(only(diff((d) => (d.components.messages.command.payload.properties.action.enum = ['start'])), 'enum-value-removed').classification).toBe('breaking');
  });

  it('the reply is read by the client: a removed reply field is breaking, an added one is not', () => {
    expect(only(diff((d) => delete d.components.messages.commandResult.payload.properties.ok), 'property-removed')).toMatchObject({ classification: 'breaking', directions: ['event'] });
    expect(only(diff((d) => (d.components.messages.commandResult.payload.properties.detail = { type: 'string' })), 'property-added').classification).toBe('non-breaking');
  });
});

describe('channels and operations', () => {
  it('a removed channel, message or operation is breaking; added ones are not', () => {
    expect(only(diff((d) => delete d.channels.thingEvents.messages.thingChanged), 'message-removed').classification).toBe('breaking');
    expect(only(diff((d) => delete d.operations.sendThingChanged), 'operation-removed').classification).toBe('breaking');
    const added = diff((d) => {
      d.channels.alerts = { address: '/alerts', messages: { alert: { payload: { type: 'object' } } } };
      d.operations.sendAlert = { action: 'send', channel: { $ref: '#/channels/alerts' }, messages: [{ $ref: '#/channels/alerts/messages/alert' }] };
    });
    expect(added.map((c) => [c.code, c.classification]).sort()).toEqual([
      ['channel-added', 'non-breaking'],
      ['operation-added', 'non-breaking'],
    ]);
  });

  it('a changed channel address or operation action is breaking', () => {
    expect(only(diff((d) => (d.channels.thingEvents.address = '/v2/things/events')), 'channel-address-changed').classification).toBe('breaking');
    expect(only(diff((d) => (d.operations.sendThingChanged.action = 'receive')), 'operation-action-changed').classification).toBe('breaking');
  });

  it('changes to an x-inferred channel are reported but never breaking', () => {
    const address = only(diff((d) => (d.channels.experimental.address = '/probe')), 'channel-address-changed');
    expect(address).toMatchObject({ classification: 'non-breaking', inferred: true, wouldBe: 'breaking' });
    const removed = only(diff((d) => delete d.channels.experimental.messages.probe.payload.properties.at), 'property-removed');
    expect(removed).toMatchObject({ classification: 'non-breaking', inferred: true });
    expect(only(diff((d) => delete d.channels.experimental), 'channel-removed')).toMatchObject({ classification: 'non-breaking', inferred: true });
  });

  it('descriptions are documentation-only; a new API version is breaking', () => {
    const docs = diff((d) => {
      d.components.messages.thingChanged.summary = 'A thing changed.';
      d.info.version = '1.1.0';
    });
    expect(docs.map((c) => c.classification)).toEqual(['documentation', 'documentation']);
    expect(only(diff((d) => (d.info['x-api-version'] = 'v2')), 'api-version-changed').classification).toBe('breaking');
  });
});
