// Validators and converters people run on the contract (issue 18) agree it is valid, with no
// false "invalid" a change of the contract can avoid; the table "Validators and converters" of
// docs/guides/tool-compatibility.md says the same.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DiagnosticSeverity, Parser, fromFile } from '@asyncapi/parser';
import { Document, Spectral } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { parse as parseYaml } from 'yaml';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { followRef, generatedFiles, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';
import { formatFinding, runRedoclyLint } from './helpers/lint.js';
import { quietly } from '../scripts/compat/quietly.js';
import { OpenApiSchemaValidator, PostmanConverter as Converter, SwaggerParser, orvalSwaggerParser } from '../scripts/compat/validators.js';

const document = loadOpenApi();
const scratch = mkdtempSync(path.join(tmpdir(), 'numbers-api-validators-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The description with server variables that carry a `description`, as before issue 18. */
function withVariableDescriptions(): JsonObject {
  const doc = structuredClone(document);
  for (const server of doc.servers) for (const variable of Object.values<JsonObject>(server.variables ?? {})) variable.description = 'What it stands for.';
  return doc;
}

describe('@apidevtools/swagger-parser validate', () => {
  it('12.x finds the bundle valid', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("orval's start-up check (its own swagger-parser) finds it valid", async () => {
    await expect(orvalSwaggerParser().validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('would call a server variable with a description invalid (the upstream typo the contract avoids)', async () => {
    await expect(SwaggerParser.validate(withVariableDescriptions() as never)).rejects.toThrow(/variables\/base_url must NOT have unevaluated properties/);
  });
});

describe('Spectral with spectral:oas', () => {
  const errors = async (text: string) => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
    const results = await spectral.run(new Document(text, Parsers.Yaml, generatedFiles.openapiYaml));
    return results.filter((r) => r.severity === 0).map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
  };

  it('reports no error', async () => {
    expect(await errors(readFileSync(generatedFiles.openapiYaml, 'utf8'))).toEqual([]);
  });

  it('reports one on a description that breaks its rules (two operations with one operationId)', async () => {
    const broken = structuredClone(document);
    broken.paths['/api/v1/calls'].get.operationId = broken.paths['/api/v1/calls'].post.operationId;
    expect((await errors(JSON.stringify(broken))).join('\n')).toMatch(/operation-operationId-unique/);
  });
});

describe('Redocly CLI with recommended-strict', () => {
  it('redocly.strict.yaml (recommended-strict, two rules adjusted with their reasons) reports nothing', async () => {
    const { findings, ignored } = await runRedoclyLint(generatedFiles.openapiYaml, path.join(repoRoot, 'redocly.strict.yaml'));
    expect(ignored).toBe(0);
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('recommended-strict alone reports only the rules redocly.strict.yaml adjusts', async () => {
    const adjusted = Object.keys(parseYaml(readFileSync(path.join(repoRoot, 'redocly.strict.yaml'), 'utf8')).rules).sort();
    const config = path.join(scratch, 'redocly.yaml');
    writeFileSync(config, 'extends:\n  - recommended-strict\ntelemetry: off\n');
    const { findings } = await runRedoclyLint(generatedFiles.openapiYaml, config);
    expect([...new Set(findings.map((f) => f.rule))].sort()).toEqual(adjusted);
  });
});

it('@seriousme/openapi-schema-validator finds the bundle valid', async () => {
  const result = await new OpenApiSchemaValidator().validate(structuredClone(document) as never);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

it('@asyncapi/parser reports no error on generated/asyncapi.json', async () => {
  const { diagnostics } = await fromFile(new Parser(), generatedFiles.asyncapiJson).parse();
  expect(diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => `${d.code}: ${d.message}`)).toEqual([]);
});

describe('openapi-to-postmanv2', () => {
  type Item = { name: string; item?: Item[]; request: { method: string; url: { path?: string[] } }; response?: { code: number; body?: string; originalRequest?: { body?: { raw?: string } } }[] };
  const convert = (doc: JsonObject): Promise<Item[]> =>
    new Promise((resolve, reject) => {
      // Examples, not values faked from the schemas: the setting that carries examples over at all.
      type Result = { result: boolean; reason?: string; output: { data: { item: Item[] } }[] };
      const done = (error: unknown, result?: Result) => {
        if (error || !result?.result) return reject(error ?? new Error(result?.reason));
        const flat = (items: Item[]): Item[] => items.flatMap((i) => (i.item ? flat(i.item) : [i]));
        resolve(flat(result.output[0]!.data.item));
      };
      Converter.convertV2({ type: 'json', data: structuredClone(doc) }, { parametersResolution: 'Example' }, done as never);
    });
  const sendExamples = (doc: JsonObject, where: 'request' | 'response') => {
    const op = doc.paths['/api/v1/messages'].post;
    const media = where === 'request' ? followRef(doc, op.requestBody).content['application/json'] : followRef(doc, op.responses['201']).content['application/json'];
    return Object.entries<JsonObject>(media.examples).map(([name, e]) => [name, followRef(doc, e).value] as const);
  };
  const keptPairs = async (doc: JsonObject) => {
    const items = await convert(doc);
    const send = items.find((i) => i.request.method === 'POST' && i.request.url.path?.join('/') === 'api/v1/messages')!;
    return (send.response ?? []).filter((r) => r.code === 201).map((r) => ({ request: JSON.parse(r.originalRequest?.body?.raw ?? 'null'), response: JSON.parse(r.body ?? 'null') }));
  };

  it('keeps every request example of POST /api/v1/messages, each with the 201 answer of the same name', async () => {
    const pairs = await quietly(() => keptPairs(document));
    const requests = sendExamples(document, 'request');
    const responses = new Map(sendExamples(document, 'response'));
    expect(requests.length).toBeGreaterThanOrEqual(4);
    for (const [name, body] of requests) expect(pairs, name).toContainEqual({ request: body, response: responses.get(name) });
    expect(pairs).toHaveLength(requests.length);
  }, 60_000);

  it('keeps only the first when the names differ (as before issue 18: one of four)', async () => {
    const renamed = structuredClone(document);
    const media = followRef(renamed, renamed.paths['/api/v1/messages'].post.responses['201']).content['application/json'];
    media.examples = Object.fromEntries(Object.entries(media.examples).map(([name, e]) => [`${name}Answer`, e]));
    const pairs = await quietly(() => keptPairs(renamed));
    expect(pairs).toHaveLength(1);
  }, 60_000);
});
