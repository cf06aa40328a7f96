// Severity follows the rule, for missing fields too (issue 29): a record the interface
// specification documents (a phone number, a message, a call, an error ...) is judged as
// documented wherever it stands, also inside an envelope the contract had to infer (the numbers
// list, an inferred answer). One case per documented record under each inferred envelope of the
// description, found by walking every answer's schema: the record with one documented required
// field dropped fails, and so does the record with a documented field of the wrong type. Only what
// is itself `x-inferred` stays advisory (the last cases).
import { describe, expect, it } from 'vitest';
import { checkResponse } from '../conformance/checks/response.js';
import { documentedResponse, findOperation, listOperations, loadDescription, type Json, type Operation } from '../conformance/description.js';
import type { Exchange } from '../conformance/http.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { childPointer, resolveRef, valueAt } from '../src/contract/json-pointer.js';

const document = loadDescription();
const operations = listOperations(document);
const validator = contractValidator(document);

interface Placed {
  operationId: string;
  status: number;
  component: string;
  /** JSON pointer of the record in the example answer. */
  at: string;
  body: Json;
}

const isObjectSchema = (schema: Json): boolean => [schema?.type].flat().includes('object') && Array.isArray(schema?.required) && schema.required.length > 0;

/** The examples of a documented answer, as values. */
function examplesOf(op: Operation, status: number): Json[] {
  const media = documentedResponse(document, op, status)?.response?.content?.['application/json'];
  const values = Object.values<Json>(media?.examples ?? {}).map((e) => resolveRef(document, e)?.value);
  return [...values, media?.example].filter((v) => v !== undefined);
}

/**
 * The documented object records standing under something inferred in `body`, walked together with
 * its schema: `$ref`s to a documented component reached from inside an inferred node.
 */
function recordsUnderInferred(schema: Json, value: Json, under: boolean, at: string, out: Array<{ component: string; at: string }>, depth = 0): void {
  if (!schema || typeof schema !== 'object' || value === undefined || depth > 12) return;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(document, schema);
    const name = schema.$ref.split('/').pop() as string;
    if (under && target?.['x-inferred'] !== true && isObjectSchema(target) && value && typeof value === 'object' && !Array.isArray(value)) {
      out.push({ component: name, at });
      return;
    }
    recordsUnderInferred(target, value, under || target?.['x-inferred'] === true, at, out, depth + 1);
    return;
  }
  const inferred = under || schema['x-inferred'] === true;
  if (Array.isArray(value) && schema.items) value.slice(0, 1).forEach((item, i) => recordsUnderInferred(schema.items, item, inferred, childPointer(at, i), out, depth + 1));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
      if (name in value) recordsUnderInferred(property, value[name], inferred || property?.['x-inferred'] === true, childPointer(at, name), out, depth + 1);
    }
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const branch of schema[key] ?? []) recordsUnderInferred(branch, value, inferred, at, out, depth + 1);
}

const placed: Placed[] = [];
for (const op of operations) {
  for (const code of Object.keys(op.operation.responses ?? {})) {
    const status = Number(code);
    const doc = documentedResponse(document, op, status);
    const schema = doc?.response?.content?.['application/json']?.schema;
    if (!schema) continue;
    const inferred = op.inferred || doc.inferred;
    for (const body of examplesOf(op, status)) {
      const found: Array<{ component: string; at: string }> = [];
      recordsUnderInferred(schema, body, inferred, '', found);
      for (const record of found) {
        // The whole answer of an inferred success response is what is assumed (its own cases below).
        if (record.at === '' && status < 300) continue;
        if (placed.some((p) => p.operationId === op.operationId && p.status === status && p.component === record.component)) continue;
        placed.push({ operationId: op.operationId, status, ...record, body });
      }
    }
  }
}

function exchange(operationId: string, status: number, body: Json): Exchange {
  return { operationId, method: 'get', target: '/', auth: 'valid', status, headers: { 'content-type': 'application/json' }, bodyText: JSON.stringify(body), body, durationMs: 1 };
}

function schemaVerdict(p: Placed, body: Json) {
  const findings = checkResponse(document, validator, findOperation(operations, p.operationId)!, exchange(p.operationId, p.status, body));
  return findings.find((f) => f.check === 'response-schema-conformance');
}

/** The record at `at` in a copy of `body`, changed by `change`. */
function changed(body: Json, at: string, change: (record: Json) => void): Json {
  const copy = structuredClone(body);
  change(at === '' ? copy : valueAt(copy, `#${at}`));
  return copy;
}

/** The first documented required field of the component (its own property not marked inferred). */
function documentedRequired(component: string, record: Json): string | undefined {
  const schema = resolveRef(document, { $ref: `#/components/schemas/${component}` });
  return (schema.required as string[]).find((name) => name in record && resolveRef(document, schema.properties?.[name])?.['x-inferred'] !== true && schema.properties?.[name]?.['x-inferred'] !== true);
}

/** A documented field of the record given a value its schema refuses (a boolean, else a number). */
function wrongValue(component: string, record: Json): { field: string; value: unknown } | undefined {
  const pointer = `#/components/schemas/${component}`;
  const schema = resolveRef(document, { $ref: pointer });
  for (const name of schema.required as string[]) {
    if (!(name in record) || schema.properties?.[name]?.['x-inferred'] === true) continue;
    for (const value of [true, 12345, 'conformance-wrong-value']) {
      if (!validator.accepts(pointer, { ...record, [name]: value })) return { field: name, value };
    }
  }
  return undefined;
}

describe('the documented records under an inferred envelope were found', () => {
  it('covers the lists whose envelope is inferred (numbers, messages, calls) and inferred answers', () => {
    const where = placed.map((p) => `${p.operationId} ${p.status} ${p.component}`);
    expect(where).toEqual(expect.arrayContaining(['listNumbers 200 PhoneNumber', 'listMessages 200 Message', 'listCalls 200 Call']));
    expect(placed.length).toBeGreaterThanOrEqual(8);
  });
});

describe.each(placed)('$operationId $status: a $component at "$at" (documented, under an inferred envelope)', (p) => {
  it('validates as documented in the example', () => {
    expect(schemaVerdict(p, p.body)?.verdict).toBe('pass');
  });

  it('fails when a documented required field is missing', () => {
    const record = p.at === '' ? p.body : valueAt(p.body, `#${p.at}`);
    const field = documentedRequired(p.component, record);
    expect(field, `${p.component} requires a documented field`).toBeDefined();
    const finding = schemaVerdict(p, changed(p.body, p.at, (r) => delete r[field!]));
    expect(finding?.verdict).toBe('fail');
    expect(finding?.verdicts?.some((v) => v.keyword === 'required' && v.params.missingProperty === field && v.severity === 'documented')).toBe(true);
  });

  it('fails when a documented field has a wrong value', () => {
    const record = p.at === '' ? p.body : valueAt(p.body, `#${p.at}`);
    const wrong = wrongValue(p.component, record);
    expect(wrong, `${p.component} has a documented field a wrong value breaks`).toBeDefined();
    const finding = schemaVerdict(p, changed(p.body, p.at, (r) => (r[wrong!.field] = wrong!.value)));
    expect(finding?.verdict).toBe('fail');
  });
});

describe('what is itself inferred stays advisory', () => {
  it('a record that is itself the assumed answer (a send answered with only an id): its values are judged, what it requires is not', () => {
    const send = { operationId: 'sendMessage', status: 201, component: 'Message', at: '', body: {} };
    expect(schemaVerdict(send, { id: 'msg_1' })?.verdict).toBe('advisory');
    expect(schemaVerdict(send, { id: 'msg_1', channel: 'telegram' })?.verdict).toBe('fail');
  });


  it('an inferred field of a documented record (a call without its inferred `id`)', () => {
    const call = resolveRef(document, { $ref: '#/components/schemas/Call' });
    const inferredField = Object.keys(call.properties).find((name) => call.properties[name]?.['x-inferred'] === true && call.required?.includes(name));
    const list = examplesOf(findOperation(operations, 'listCalls')!, 200)[0];
    if (!inferredField) {
      // No inferred required field on Call: the envelope is the inferred part to break.
      const finding = schemaVerdict({ operationId: 'listCalls', status: 200, component: 'Call', at: '', body: list }, { items: list });
      expect(finding?.verdict).toBe('advisory');
      return;
    }
    const finding = schemaVerdict({ operationId: 'listCalls', status: 200, component: 'Call', at: '', body: list }, list.map((c: Json) => ({ ...c, [inferredField]: undefined })));
    expect(finding?.verdict).not.toBe('fail');
  });

  it('the shape of an inferred envelope (the numbers list as an object instead of an array)', () => {
    const list = examplesOf(findOperation(operations, 'listNumbers')!, 200)[0];
    const finding = schemaVerdict({ operationId: 'listNumbers', status: 200, component: 'PhoneNumber', at: '', body: list }, { data: list });
    expect(finding?.verdict).toBe('advisory');
  });
});
