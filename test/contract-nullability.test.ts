// Every nullable field is shown as `null` in at least one example (issue 2; STYLE.md, defect 1:
// nullability that does not match what the API returns is the defect users report most). A field
// is nullable when its schema is `type: [x, 'null']` or an `anyOf`/`oneOf` with a `type: 'null'`
// branch (3.1 style; the 3.0 `nullable` keyword is banned by the Spectral rules).
import { describe, expect, it } from 'vitest';
import { followRef, listOperations, loadOpenApi, type JsonObject } from './helpers/contract.js';

const document = loadOpenApi();

function isNullable(schema: JsonObject | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const resolved = followRef(document, schema);
  if (Array.isArray(resolved.type) && resolved.type.includes('null')) return true;
  const branches = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])] as JsonObject[];
  return branches.some((branch) => followRef(document, branch).type === 'null');
}

/** `Component.property` for every nullable property declared on a component schema, at any depth. */
function nullableFields(): Set<string> {
  const found = new Set<string>();
  const visit = (schema: unknown, where: string, seen: Set<unknown>): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    const node = schema as JsonObject;
    if (typeof node.$ref === 'string') return; // a reference is visited under its own component
    for (const [name, property] of Object.entries((node.properties ?? {}) as JsonObject)) {
      if (isNullable(property as JsonObject)) found.add(`${where}.${name}`);
      visit(property, `${where}.${name}`, seen);
    }
    for (const key of ['items', 'then', 'else', 'if', 'not', 'additionalProperties']) visit(node[key], where, seen);
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const branch of node[key] ?? []) visit(branch, where, seen);
  };
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as JsonObject)) {
    visit(schema, name, new Set());
  }
  return found;
}

/** Walk an example value along its schema and record every nullable field that is `null` in it. */
function coveredBy(value: unknown, schema: unknown, where: string, covered: Set<string>, depth = 0): void {
  if (depth > 40 || !schema || typeof schema !== 'object') return;
  let node = schema as JsonObject;
  if (typeof node.$ref === 'string') {
    where = node.$ref.split('/').pop() as string;
    node = followRef(document, node);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of node[key] ?? []) coveredBy(value, branch, where, covered, depth + 1);
  }
  for (const key of ['then', 'else']) coveredBy(value, node[key], where, covered, depth + 1);
  if (Array.isArray(value)) {
    for (const item of value) coveredBy(item, node.items, where, covered, depth + 1);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [name, property] of Object.entries((node.properties ?? {}) as JsonObject)) {
      const field = (value as JsonObject)[name];
      if (field === null) covered.add(`${where}.${name}`);
      else coveredBy(field, property, `${where}.${name}`, covered, depth + 1);
    }
  }
}

function examplesCovered(): Set<string> {
  const covered = new Set<string>();
  const mediaTypes: JsonObject[] = [];
  for (const section of ['paths', 'webhooks'] as const) {
    for (const { operation } of listOperations(document, section)) {
      const body = followRef(document, operation.requestBody ?? {});
      mediaTypes.push(...Object.values((body.content ?? {}) as JsonObject));
      for (const response of Object.values((operation.responses ?? {}) as JsonObject)) {
        mediaTypes.push(...Object.values((followRef(document, response).content ?? {}) as JsonObject));
      }
    }
  }
  for (const media of mediaTypes) {
    const values = Object.values((media.examples ?? {}) as JsonObject).map((example) => followRef(document, example).value);
    if ('example' in media) values.push(media.example);
    for (const value of values) coveredBy(value, media.schema, '', covered);
  }
  return covered;
}

describe('nullability shown in examples', () => {
  const nullable = [...nullableFields()].sort();
  const covered = examplesCovered();

  it('finds the nullable fields of the description (sanity: the walk sees known ones)', () => {
    // Named by part 2: a message's `groupId`, the account's `limits`.
    expect(nullable).toContain('Message.groupId');
    expect(nullable).toContain('Account.limits');
  });

  it.each(nullable)('%s is null in at least one example', (field) => {
    expect(covered.has(field), `no example shows ${field} as null`).toBe(true);
  });
});
