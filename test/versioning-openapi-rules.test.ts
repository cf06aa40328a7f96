// Classification rules of the contract diff (scripts/diff/), OpenAPI side: one small before/after
// document per rule, built inline so each case shows exactly what changed.
import { describe, expect, it } from 'vitest';
import { type Change, INFERRED_NOTE, diffContracts } from '../scripts/diff/index.js';
import { only, type Json } from './helpers/diff-changes.js';

/** A one-resource API: list and create `Thing`s, and a webhook delivering `ThingEvent`s. */
function api(edit: (doc: Json) => void = () => {}): Json {
  const doc: Json = {
    openapi: '3.1.0',
    info: { title: 'Things', version: '1.0.0', 'x-api-version': 'v1' },
    paths: {
      '/api/v1/things': {
        get: {
          operationId: 'listThings',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } }],
          responses: {
            '200': {
              description: 'The things.',
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } },
            },
          },
        },
        post: {
          operationId: 'createThing',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThing' } } } },
          responses: {
            '201': { description: 'Created.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          },
        },
      },
      '/api/v1/things/{id}': {
        delete: {
          operationId: 'deleteThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'Deleted.' } },
        },
      },
    },
    webhooks: {
      thingChanged: {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingEvent' } } } },
          responses: { '200': { description: 'Received.' } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'name', 'status'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string', description: 'Label.' },
            status: { type: 'string', enum: ['active', 'disabled'] },
            // An open enum: documented values, and any other string.
            kind: { type: 'string', anyOf: [{ const: 'small' }, { const: 'large' }, { type: 'string' }] },
            note: { type: 'string' },
            owner: { $ref: '#/components/schemas/Owner' },
            size: { type: 'integer' },
          },
        },
        Owner: { type: 'object', properties: { id: { type: 'string' } } },
        CreateThing: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            status: { type: 'string', enum: ['active', 'disabled'] },
            weight: { type: 'number' },
            size: { type: 'integer' },
          },
        },
        ThingEvent: {
          type: 'object',
          required: ['id', 'type'],
          properties: { id: { type: 'string' }, type: { type: 'string' }, thing: { $ref: '#/components/schemas/Thing' } },
        },
      },
    },
  };
  edit(doc);
  return doc;
}

const schemas = (doc: Json) => doc.components.schemas;

function diff(edit: (doc: Json) => void): Change[] {
  return diffContracts({ openapi: api() }, { openapi: api(edit) }).changes;
}

describe('an unchanged description', () => {
  it('has no changes', () => {
    expect(diffContracts({ openapi: api() }, { openapi: api() }).changes).toEqual([]);
  });
});

describe('request side: what narrows what a client may send breaks clients', () => {
  it('a new required field is breaking', () => {
    const c = only(diff((d) => {
      schemas(d).CreateThing.properties.colour = { type: 'string' };
      schemas(d).CreateThing.required.push('colour');
    }), 'required-property-added');
    expect(c).toMatchObject({ classification: 'breaking', directions: ['request'], pointer: '/components/schemas/CreateThing/properties/colour' });
    expect(c.affects).toEqual(['POST /api/v1/things · request body (application/json)']);
  });

  it('a new optional field is non-breaking', () => {
    const changes = diff((d) => (schemas(d).CreateThing.properties.colour = { type: 'string' }));
    expect(only(changes, 'property-added').classification).toBe('non-breaking');
    expect(changes.every((c) => c.classification !== 'breaking')).toBe(true);
  });

  it('an existing field becoming required is breaking', () => {
    const c = only(diff((d) => schemas(d).CreateThing.required.push('weight')), 'became-required');
    expect(c.classification).toBe('breaking');
  });

  it('a narrowed type is breaking, a widened one is not', () => {
    expect(only(diff((d) => (schemas(d).CreateThing.properties.weight.type = 'integer')), 'type-narrowed').classification).toBe('breaking');
    expect(only(diff((d) => (schemas(d).CreateThing.properties.size.type = 'number')), 'type-widened').classification).toBe('non-breaking');
  });

  it('a narrowed enum (a value removed) is breaking, a widened one is not', () => {
    const removed = only(diff((d) => (schemas(d).CreateThing.properties.status.enum = ['active'])), 'enum-value-removed');
    expect(removed).toMatchObject({ classification: 'breaking', before: 'disabled', in: 'previous' });
    // Thing.status is response-side and unchanged; only the request enum grew.
    expect(only(diff((d) => schemas(d).CreateThing.properties.status.enum.push('archived')), 'enum-value-added').classification).toBe('non-breaking');
  });

  it('a new constraint is breaking, a loosened one is not', () => {
    const added = only(diff((d) => (schemas(d).CreateThing.properties.name.maxLength = 40)), 'constraint-tightened');
    expect(added).toMatchObject({ classification: 'breaking', pointer: '/components/schemas/CreateThing/properties/name/maxLength' });
    const loosened = only(diff((d) => (d.paths['/api/v1/things'].get.parameters[0].schema.maximum = 500)), 'constraint-loosened');
    expect(loosened.classification).toBe('non-breaking');
    expect(only(diff((d) => (schemas(d).CreateThing.properties.name.pattern = '^[a-z]+$')), 'constraint-tightened').classification).toBe('breaking');
  });

  it('a removed parameter is breaking; a new required one is breaking; a new optional one is not', () => {
    const removed = only(diff((d) => delete d.paths['/api/v1/things'].get.parameters), 'parameter-removed');
    expect(removed).toMatchObject({ classification: 'breaking', in: 'previous', pointer: '/paths/~1api~1v1~1things/get/parameters/0' });
    const required = only(diff((d) => d.paths['/api/v1/things'].get.parameters.push({ name: 'tenant', in: 'query', required: true, schema: { type: 'string' } })), 'required-parameter-added');
    expect(required.classification).toBe('breaking');
    const optional = only(diff((d) => d.paths['/api/v1/things'].get.parameters.push({ name: 'cursor', in: 'query', schema: { type: 'string' } })), 'parameter-added');
    expect(optional.classification).toBe('non-breaking');
  });

  it('renaming a path parameter is not a removed operation', () => {
    const changes = diff((d) => {
      const item = d.paths['/api/v1/things/{id}'];
      item.delete.parameters[0].name = 'thingId';
      d.paths['/api/v1/things/{thingId}'] = item;
      delete d.paths['/api/v1/things/{id}'];
    });
    expect(changes.map((c) => c.code)).toEqual(['path-parameter-renamed']);
    expect(changes[0]!.classification).toBe('documentation');
  });
});

describe('response side: what widens what a consumer may receive, or takes away what it read, breaks consumers', () => {
  it('a removed field is breaking, reported once at its definition with every operation it reaches', () => {
    const c = only(diff((d) => delete schemas(d).Thing.properties.note), 'property-removed');
    expect(c).toMatchObject({ classification: 'breaking', directions: ['response', 'event'], in: 'previous', pointer: '/components/schemas/Thing/properties/note' });
    expect(c.affects).toEqual(
      expect.arrayContaining([
        'GET /api/v1/things · response 200 (application/json)',
        'POST /api/v1/things · response 201 (application/json)',
      ]),
    );
  });

  it('a renamed field is breaking', () => {
    const c = only(diff((d) => {
      schemas(d).Thing.properties.label = schemas(d).Thing.properties.note;
      delete schemas(d).Thing.properties.note;
    }), 'property-renamed');
    expect(c).toMatchObject({ classification: 'breaking', before: 'note', after: 'label' });
  });

  it('a field that becomes nullable (3.1 type list) is breaking', () => {
    const c = only(diff((d) => (schemas(d).Thing.properties.note.type = ['string', 'null'])), 'became-nullable');
    expect(c).toMatchObject({ classification: 'breaking', pointer: '/components/schemas/Thing/properties/note/type' });
  });

  it("a field that becomes nullable (anyOf with type: 'null') is breaking, and nothing else is reported", () => {
    const changes = diff((d) => (schemas(d).Thing.properties.owner = { anyOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'null' }] }));
    expect(only(changes, 'became-nullable').classification).toBe('breaking');
    expect(changes).toHaveLength(1);
  });

  it('a field that may no longer be null is non-breaking in a response', () => {
    const before = api((d) => (schemas(d).Thing.properties.note.type = ['string', 'null']));
    const changes = diffContracts({ openapi: before }, { openapi: api() }).changes;
    expect(only(changes, 'no-longer-nullable').classification).toBe('non-breaking');
  });

  it('a changed type is breaking', () => {
    const c = only(diff((d) => (schemas(d).Thing.properties.size.type = 'string')), 'type-changed');
    expect(c).toMatchObject({ classification: 'breaking', before: 'integer', after: 'string' });
  });

  it('a widened type (integer to number) is breaking in a response', () => {
    expect(only(diff((d) => (schemas(d).Thing.properties.size.type = 'number')), 'type-widened').classification).toBe('breaking');
  });

  it('a new value in a closed enum is breaking', () => {
    const c = only(diff((d) => schemas(d).Thing.properties.status.enum.push('archived')), 'enum-value-added');
    expect(c).toMatchObject({ classification: 'breaking', after: 'archived', pointer: '/components/schemas/Thing/properties/status/enum' });
  });

  it('each new enum value is its own change', () => {
    const added = diff((d) => schemas(d).Thing.properties.status.enum.push('archived', 'deleted')).filter((c) => c.code === 'enum-value-added');
    expect(added.map((c) => c.after)).toEqual(['archived', 'deleted']);
  });

  it('a new value in an enum declared open (anyOf const + type: string) is non-breaking', () => {
    const changes = diff((d) => schemas(d).Thing.properties.kind.anyOf.splice(2, 0, { const: 'huge' }));
    const c = only(changes, 'open-enum-value-added');
    expect(c).toMatchObject({ classification: 'non-breaking', after: 'huge' });
    expect(changes).toHaveLength(1);
  });

  it('closing an open enum is non-breaking for consumers; opening a closed one breaks them', () => {
    expect(only(diff((d) => (schemas(d).Thing.properties.kind.anyOf = [{ const: 'small' }, { const: 'large' }])), 'enum-closed').classification).toBe('non-breaking');
    expect(
      only(diff((d) => (schemas(d).Thing.properties.status = { type: 'string', anyOf: [{ const: 'active' }, { const: 'disabled' }, { type: 'string' }] })), 'enum-opened').classification,
    ).toBe('breaking');
  });

  it('a field moving from required to optional is breaking', () => {
    const c = only(diff((d) => (schemas(d).Thing.required = ['id', 'status'])), 'became-optional');
    expect(c).toMatchObject({ classification: 'breaking', directions: ['response', 'event'], pointer: '/components/schemas/Thing/required' });
    expect(c.message).toContain('name` is now optional');
  });

  it('a field moving from optional to required is non-breaking', () => {
    expect(only(diff((d) => schemas(d).Thing.required.push('note')), 'became-required').classification).toBe('non-breaking');
  });

  it('an added response field is non-breaking', () => {
    const changes = diff((d) => (schemas(d).Thing.properties.createdAt = { type: 'string', format: 'date-time' }));
    expect(only(changes, 'property-added').classification).toBe('non-breaking');
    expect(changes.some((c) => c.classification === 'breaking')).toBe(false);
  });

  it('a removed success response is breaking; an added error response is not', () => {
    const removed = only(diff((d) => (d.paths['/api/v1/things/{id}'].delete.responses = { '200': { description: 'Deleted.' } })), 'success-response-removed');
    expect(removed.classification).toBe('breaking');
    const added = only(diff((d) => (d.paths['/api/v1/things/{id}'].delete.responses['404'] = { description: 'No such thing.' })), 'response-added');
    expect(added.classification).toBe('non-breaking');
  });
});

describe('a schema shared by requests and responses is classified per direction', () => {
  it('a new enum value breaks where the service writes it, not where the client does', () => {
    const changes = diff((d) => {
      schemas(d).Status = { type: 'string', enum: ['active', 'disabled', 'archived'] };
      schemas(d).Thing.properties.status = { $ref: '#/components/schemas/Status' };
      schemas(d).CreateThing.properties.status = { $ref: '#/components/schemas/Status' };
    });
    const added = changes.filter((c) => c.code === 'enum-value-added');
    expect(added.map((c) => [c.directions, c.classification]).sort()).toEqual([
      [['request'], 'non-breaking'],
      [['response', 'event'], 'breaking'],
    ]);
  });
});

describe('operations', () => {
  it('an added operation is non-breaking, a removed one breaking', () => {
    const added = only(diff((d) => (d.paths['/api/v1/things/{id}'].get = { operationId: 'getThing', responses: { '200': { description: 'The thing.' } } })), 'operation-added');
    expect(added).toMatchObject({ classification: 'non-breaking', affects: ['GET /api/v1/things/{id}'] });
    const removed = only(diff((d) => delete d.paths['/api/v1/things/{id}']), 'operation-removed');
    expect(removed).toMatchObject({ classification: 'breaking', in: 'previous', pointer: '/paths/~1api~1v1~1things~1{id}/delete' });
  });

  it('a renamed operationId is breaking (the generated operations type changes name)', () => {
    expect(only(diff((d) => (d.paths['/api/v1/things'].get.operationId = 'getThings')), 'operation-id-changed').classification).toBe('breaking');
  });

  it('a deprecated operation is non-breaking', () => {
    expect(only(diff((d) => (d.paths['/api/v1/things'].get.deprecated = true)), 'operation-deprecated').classification).toBe('non-breaking');
  });
});

describe('documentation-only changes', () => {
  it('descriptions, summaries and info.version are documentation', () => {
    const changes = diff((d) => {
      schemas(d).Thing.properties.name.description = 'The label shown in lists.';
      d.paths['/api/v1/things'].get.summary = 'List things';
      d.info.version = '1.0.1';
    });
    expect(changes.length).toBe(3);
    expect(changes.every((c) => c.classification === 'documentation')).toBe(true);
    expect(changes.map((c) => c.pointer).sort()).toEqual(['/components/schemas/Thing/properties/name/description', '/info/version', '/paths/~1api~1v1~1things/get/summary']);
  });

  it('a changed API version (info.x-api-version) is breaking', () => {
    expect(only(diff((d) => (d.info['x-api-version'] = 'v2')), 'api-version-changed').classification).toBe('breaking');
  });
});

describe('x-inferred parts are reported but never breaking for the documented contract', () => {
  it('a removed inferred field is non-breaking, marked inferred, and says what it would have been', () => {
    const before = api((d) => (schemas(d).Thing.properties.note['x-inferred'] = true));
    const after = api((d) => delete schemas(d).Thing.properties.note);
    const c = only(diffContracts({ openapi: before }, { openapi: after }).changes, 'property-removed');
    expect(c).toMatchObject({ classification: 'non-breaking', inferred: true, wouldBe: 'breaking', note: INFERRED_NOTE });
    expect(INFERRED_NOTE).toBe('inferred: non-breaking for the documented contract');
  });

  it('a documented value marked inferred in its own const branch: its removal from a request is non-breaking', () => {
    const kinds = (values: Json[]) => (d: Json) => (schemas(d).CreateThing.properties.kind = { type: 'string', anyOf: [...values, { type: 'string' }] });
    const before = api(kinds([{ const: 'small' }, { const: 'huge', 'x-inferred': true }]));
    const after = api(kinds([{ const: 'small' }]));
    expect(only(diffContracts({ openapi: before }, { openapi: after }).changes, 'open-enum-value-removed')).toMatchObject({ classification: 'non-breaking', inferred: true, wouldBe: 'breaking' });
    const documented = api(kinds([{ const: 'small' }, { const: 'huge' }]));
    expect(only(diffContracts({ openapi: documented }, { openapi: after }).changes, 'open-enum-value-removed').classification).toBe('breaking');
  });

  it('a change inside an inferred schema is non-breaking', () => {
    const mark = (d: Json) => (schemas(d).Owner['x-inferred'] = true);
    const before = api(mark);
    const after = api((d) => {
      mark(d);
      schemas(d).Owner.properties.id.type = 'integer';
    });
    expect(only(diffContracts({ openapi: before }, { openapi: after }).changes, 'type-changed')).toMatchObject({ classification: 'non-breaking', inferred: true });
  });

  it('a removed inferred operation is non-breaking', () => {
    const mark = (d: Json) => (d.paths['/api/v1/things/{id}'].delete['x-inferred'] = true);
    const c = only(diffContracts({ openapi: api(mark) }, { openapi: api((d) => delete d.paths['/api/v1/things/{id}']) }).changes, 'operation-removed');
    expect(c).toMatchObject({ classification: 'non-breaking', inferred: true });
  });

  it('the marker is lexical: a documented component used by an inferred response still breaks', () => {
    const mark = (d: Json) => (d.paths['/api/v1/things'].post.responses['201']['x-inferred'] = true);
    const changes = diffContracts({ openapi: api(mark) }, { openapi: api((d) => { mark(d); delete schemas(d).Thing.properties.note; }) }).changes;
    expect(only(changes, 'property-removed')).toMatchObject({ classification: 'breaking' });
    expect(only(changes, 'property-removed').inferred).toBeUndefined();
  });

  it('an inferred response that now references another schema is non-breaking (the choice of schema is inferred)', () => {
    const mark = (d: Json) => (d.paths['/api/v1/things'].post.responses['201']['x-inferred'] = true);
    const after = api((d) => {
      mark(d);
      d.paths['/api/v1/things'].post.responses['201'].content['application/json'].schema = { $ref: '#/components/schemas/Owner' };
    });
    const changes = diffContracts({ openapi: api(mark) }, { openapi: after }).changes;
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.filter((c) => c.classification === 'breaking')).toEqual([]);
    expect(changes.filter((c) => c.affects.some((a) => a.startsWith('POST /api/v1/things · response 201'))).every((c) => c.inferred)).toBe(true);
  });

  it('an inline schema under an inferred response inherits the marker', () => {
    const inline = (d: Json, extra = {}) => {
      d.paths['/api/v1/things/{id}'].delete.responses['200'] = {
        description: 'Inferred body.',
        'x-inferred': true,
        content: { 'application/json': { schema: { type: 'object', properties: { deleted: { type: 'boolean' }, ...extra } } } },
      };
    };
    const changes = diffContracts({ openapi: api((d) => inline(d, { at: { type: 'string' } })) }, { openapi: api((d) => inline(d)) }).changes;
    expect(only(changes, 'property-removed')).toMatchObject({ classification: 'non-breaking', inferred: true });
  });
});

describe('webhooks (the service delivers, the receiver reads: event side)', () => {
  it('a removed payload field is breaking; an added one is not', () => {
    const removed = only(diff((d) => delete schemas(d).ThingEvent.properties.type), 'property-removed');
    expect(removed).toMatchObject({ classification: 'breaking', directions: ['event'], affects: ['webhook thingChanged (POST) · delivered payload (application/json)'] });
    const added = only(diff((d) => (schemas(d).ThingEvent.properties.at = { type: 'string' })), 'property-added');
    expect(added).toMatchObject({ classification: 'non-breaking', directions: ['event'] });
  });

  it('a removed webhook is breaking', () => {
    expect(only(diff((d) => delete d.webhooks.thingChanged), 'webhook-removed').classification).toBe('breaking');
  });
});

describe('components exported as types', () => {
  it('a removed named schema is breaking for code that imports its generated type', () => {
    const changes = diff((d) => {
      schemas(d).Thing.properties.owner = { type: 'object', properties: { id: { type: 'string' } } };
      delete schemas(d).Owner;
    });
    expect(only(changes, 'component-removed')).toMatchObject({ classification: 'breaking', pointer: '/components/schemas/Owner' });
  });
});

describe('rewrites that describe the same values are not changes', () => {
  const same = (edit: (doc: Json) => void) => diff(edit).filter((c) => c.classification !== 'documentation');

  it('moving properties into a shared base schema (allOf)', () => {
    expect(same((d) => {
      schemas(d).Base = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
      const { id: _id, ...rest } = schemas(d).Thing.properties;
      schemas(d).Thing = { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', required: ['name', 'status'], properties: rest }] };
    }).filter((c) => c.code !== 'component-added')).toEqual([]);
  });

  it('`not: {required: [x]}` rewritten as `properties: {x: false}`, and a property re-declared in a union branch', () => {
    const exclusive = (branch: (other: string) => Json) => (d: Json) => {
      const t = schemas(d).CreateThing;
      t.properties.colour = { type: 'string' };
      t.properties.pattern = { type: 'string' };
      t.oneOf = [
        { required: ['colour'], ...branch('pattern') },
        { required: ['pattern'], ...branch('colour') },
      ];
    };
    const before = api(exclusive((other) => ({ not: { required: [other] } })));
    // The branch now also re-declares the field it requires (it was declared only around it).
    const after = api(exclusive((other) => ({ title: `without ${other}`, properties: { [other === 'colour' ? 'pattern' : 'colour']: { type: 'string' }, [other]: false } })));
    const changes = diffContracts({ openapi: before }, { openapi: after }).changes;
    expect(changes.filter((c) => c.classification !== 'documentation')).toEqual([]);
  });

  it('`properties: {x: false}` rewritten as `{type: null, not: {}}` for code generators, and the union wrapped in allOf', () => {
    const exclusive = (forbidden: Json, wrap: boolean) => (d: Json) => {
      const t = schemas(d).CreateThing;
      t.properties.colour = { type: 'string' };
      t.properties.pattern = { type: 'string' };
      const oneOf = [
        { title: 'colour', required: ['colour'], properties: { pattern: forbidden } },
        { title: 'pattern', required: ['pattern'], properties: { colour: forbidden } },
      ];
      if (wrap) t.allOf = [{ oneOf }];
      else t.oneOf = oneOf;
    };
    const changes = diffContracts({ openapi: api(exclusive(false, false)) }, { openapi: api(exclusive({ type: 'null', not: {} }, true)) }).changes;
    expect(changes.filter((c) => c.classification !== 'documentation')).toEqual([]);
    // Whereas a field typed null (without `not: {}`) may be sent, as null: not the same schema.
    const nullable = diffContracts({ openapi: api(exclusive(false, false)) }, { openapi: api(exclusive({ type: 'null' }, true)) }).changes;
    expect(nullable.filter((c) => c.classification !== 'documentation').length).toBeGreaterThan(0);
  });

  describe('a union with fields beside it, and a union nested in a branch, rewritten as complete branches (issue 18)', () => {
    const forbid = { type: 'null', not: {} };
    // Before: shared fields beside `allOf: [{oneOf: [A ∧ oneOf(C1, C2), B]}]`.
    const nested = (d: Json) => {
      d.components.schemas.CreateThing = {
        type: 'object',
        properties: { name: { type: 'string' }, colour: { type: 'string' }, pattern: { type: 'string' }, group: { type: 'string' } },
        allOf: [{
          oneOf: [
            { title: 'Single', allOf: [{ required: ['name'], properties: { group: forbid } }, { oneOf: [
              { title: 'Colour', required: ['colour'], properties: { pattern: forbid } },
              { title: 'Pattern', required: ['pattern'], properties: { colour: forbid } },
            ] }] },
            { title: 'Grouped', required: ['group'], properties: { name: forbid } },
          ],
        }],
      };
    };
    // After: three complete branches, each the shared fields plus its own, forbidden fields as
    // an allOf of two types.
    const flat = (edit: (branches: Json[]) => void = () => {}) => (d: Json) => {
      const shared = { type: 'object', properties: { colour: { type: 'string' }, pattern: { type: 'string' } } };
      const never = { allOf: [{ type: 'null' }, { type: 'string' }] };
      const branches: Json[] = [
        { title: 'Single, colour', allOf: [shared, { required: ['name', 'colour'], properties: { name: { type: 'string' }, pattern: never, group: never } }] },
        { title: 'Single, pattern', allOf: [shared, { required: ['name', 'pattern'], properties: { name: { type: 'string' }, colour: never, group: never } }] },
        { title: 'Grouped', allOf: [shared, { required: ['group'], properties: { group: { type: 'string' }, name: never } }] },
      ];
      edit(branches);
      d.components.schemas.CreateThing = { type: 'object', oneOf: branches };
    };
    const significant = (before: (d: Json) => void, after: (d: Json) => void) =>
      diffContracts({ openapi: api(before) }, { openapi: api(after) }).changes.filter((c) => c.classification !== 'documentation');

    it('is not a change', () => {
      expect(significant(nested, flat())).toEqual([]);
    });

    it('but a field dropped from one branch is still breaking', () => {
      const changes = significant(nested, flat((b) => delete b[2].allOf[0]));
      expect(changes.some((c) => c.classification === 'breaking' && /colour|pattern/.test(c.message)), JSON.stringify(changes.map((c) => c.message))).toBe(true);
    });
  });

  it('a property moved from a conditional `then` into the schema it refines, and an equivalent `if`', () => {
    const conditional = (thenHasProperty: boolean, wrapIf: boolean) => (d: Json) => {
      const t = schemas(d).Thing;
      const condition = { required: ['status'], properties: { status: { const: 'disabled' } } };
      t.if = wrapIf ? { allOf: [condition] } : condition;
      t.then = thenHasProperty ? { required: ['note'], properties: { note: { type: 'string' } } } : { required: ['note'] };
    };
    const changes = diffContracts({ openapi: api(conditional(true, true)) }, { openapi: api(conditional(false, false)) }).changes;
    expect(changes).toEqual([]);
  });

  it('a const or closed enum without `type` has the type of its values', () => {
    expect(same((d) => delete schemas(d).Thing.properties.status.type)).toEqual([]);
  });

  it('allOf of a nullable and a non-nullable schema is not nullable', () => {
    expect(same((d) => (schemas(d).Thing.properties.note = { allOf: [{ type: ['string', 'null'] }, { type: 'string' }] }))).toEqual([]);
  });

  it('a changed condition is breaking (it cannot be ordered)', () => {
    const conditional = (value: string) => (d: Json) => {
      schemas(d).Thing.if = { properties: { status: { const: value } } };
      schemas(d).Thing.then = { required: ['note'] };
    };
    const changes = diffContracts({ openapi: api(conditional('disabled')) }, { openapi: api(conditional('active')) }).changes;
    expect(only(changes, 'condition-changed').classification).toBe('breaking');
  });

  it('a newly forbidden request field is breaking', () => {
    const c = only(diff((d) => (schemas(d).CreateThing.not = { required: ['weight'] })), 'property-forbidden');
    expect(c.classification).toBe('breaking');
  });

  it('a recursive schema terminates', () => {
    const tree = (extra: Json) => (d: Json) => {
      schemas(d).Node = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } }, ...extra } };
      schemas(d).Thing.properties.tree = { $ref: '#/components/schemas/Node' };
    };
    const changes = diffContracts({ openapi: api(tree({ label: { type: 'string' } })) }, { openapi: api(tree({})) }).changes;
    expect(only(changes, 'property-removed').classification).toBe('breaking');
  });
});
