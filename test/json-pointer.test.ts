// The repository's one JSON-pointer and `$ref` helper (src/contract/json-pointer.ts), read by the
// simulator, the conformance suite, the diff, the benches and the docs build.
import { describe, expect, it } from 'vitest';
import { pointerOf, pointerSegments, resolveRef, resolveRefShown, valueAt } from '../src/contract/json-pointer.js';

const doc = {
  paths: { '/api/v1/a~b': { get: { operationId: 'x' } } },
  components: {
    schemas: {
      Phone: { type: 'string', description: 'E.164', pattern: '^\\+' },
      Alias: { $ref: '#/components/schemas/Phone', description: 'The sender' },
      Loop: { $ref: '#/components/schemas/Loop2' },
      Loop2: { $ref: '#/components/schemas/Loop' },
    },
  },
};

describe('JSON pointers', () => {
  it('escapes and reads back `/` and `~` in a segment', () => {
    const pointer = pointerOf(['paths', '/api/v1/a~b', 'get']);
    expect(pointer).toBe('#/paths/~1api~1v1~1a~0b/get');
    expect(pointerSegments(pointer)).toEqual(['paths', '/api/v1/a~b', 'get']);
    expect(valueAt(doc, pointer)).toEqual({ operationId: 'x' });
  });

  it('reads own properties only: `__proto__` or `toString` points at nothing', () => {
    expect(valueAt(doc, '#/components/__proto__')).toBeUndefined();
    expect(valueAt(doc, '#/components/schemas/toString')).toBeUndefined();
  });
});

describe('local $refs', () => {
  it('resolveRef follows every hop to the target, as the validators do', () => {
    expect(resolveRef(doc, { $ref: '#/components/schemas/Alias' })).toEqual(doc.components.schemas.Phone);
  });

  it('resolveRefShown keeps what is written beside a $ref, winning over the target (what a reader is shown)', () => {
    expect(resolveRefShown(doc, { $ref: '#/components/schemas/Alias', title: 'From' })).toEqual({
      type: 'string',
      pattern: '^\\+',
      description: 'The sender',
      title: 'From',
    });
  });

  it('both stop on a cycle and on a reference that is not local; resolveRefShown on one to nothing', () => {
    for (const follow of [resolveRef, resolveRefShown]) {
      expect(() => follow(doc, { $ref: '#/components/schemas/Loop' })).toThrow(/comes back to itself/);
      expect(() => follow(doc, { $ref: 'other.yaml#/X' })).toThrow(/only local references/);
    }
    expect(() => resolveRefShown(doc, { $ref: '#/components/schemas/Nope' })).toThrow(/points at nothing/);
  });
});
