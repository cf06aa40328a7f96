// Every example in the bundled description validates against its schema (JSON Schema 2020-12,
// formats on), one test per example named by its JSON pointer, so a failure names the example:
// media-type examples of requests and responses, parameter and header examples, schema examples.
// A wrong example is the defect users of public descriptions report most (STYLE.md, defect 4),
// and the mock serves these examples to frontend teams.
import { describe, expect, test } from 'vitest';
import { contractValidator } from '../src/contract/contract-validator.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { isJsonMediaType, loadOpenApi } from './helpers/contract.js';
import { collectExamples, listResponseContents } from './helpers/examples.js';

const document = loadOpenApi();
const validator = contractValidator(document);
const examples = collectExamples(document);

describe('examples of generated/openapi.json', () => {
  test('there are examples of every kind to check', () => {
    const kinds = new Set(examples.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['header', 'media-type', 'parameter', 'schema']);
  });

  describe('each example validates against its schema', () => {
    test.each(examples.map((e) => [e.pointer, e] as const))('%s', (_pointer, example) => {
      expect(validator.value(example.schemaPointer, example.value).map(describeVerdict), `against the schema at ${example.schemaPointer}`).toEqual([]);
    });
  });

  describe('every response with a JSON body has at least one named example (for Prism `Prefer: example=`)', () => {
    const jsonBodies = listResponseContents(document).filter((c) => isJsonMediaType(c.mediaType));
    test.each(jsonBodies.map((c) => [c.pointer, c] as const))('%s', (_pointer, content) => {
      expect(Object.keys(content.media.examples ?? {}).length).toBeGreaterThan(0);
    });
  });
});
