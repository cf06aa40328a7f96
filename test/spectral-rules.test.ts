// The house rules of .spectral.yaml each catch the defect they exist for: every rule fires on a
// small document with exactly that defect (test/fixtures/spectral/bad-*.yaml, each a copy of
// good.yaml with one change) and on nothing else, and the good document passes the whole ruleset.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from './helpers/contract.js';
import { formatFinding, runSpectral } from './helpers/lint.js';

const fixture = (name: string) => path.join(repoRoot, 'test/fixtures/spectral', name);

/** rule -> [fixture with that defect, where the rule must report it]. */
const CASES: Record<string, [file: string, where: string]> = {
  'house-operation-x-source': ['bad-x-source.yaml', 'paths./api/v1/numbers.get'],
  'house-authenticated-operation-401': ['bad-401.yaml', 'paths./api/v1/numbers.get.responses'],
  'house-error-response-uses-error-schema': ['bad-error-schema.yaml', 'paths./api/v1/numbers.get.responses.404'],
  'house-response-has-example': ['bad-example.yaml', 'paths./api/v1/auth/signup.post.responses.200.content.application/json'],
  'house-paths-api-v1': ['bad-path-prefix.yaml', 'paths./v1/numbers'],
  'house-operation-id-camel-case': ['bad-operation-id.yaml', 'paths./api/v1/numbers.get.operationId'],
  'house-inferred-has-reason': ['bad-inferred.yaml', 'components.schemas.NumberList.x-inferred'],
  'house-no-nullable-keyword': ['bad-nullable.yaml', 'components.schemas.NumberList.properties.items.items.properties.nickname.nullable'],
  'house-429-retry-after': ['bad-retry-after.yaml', 'components.responses.TooManyRequests'],
  'house-operation-x-effects': ['bad-effects.yaml', 'paths./api/v1/numbers.get'],
};

describe('house Spectral rules (.spectral.yaml)', () => {
  test('every house rule of the ruleset has a case here', () => {
    const ruleset = parse(readFileSync(path.join(repoRoot, '.spectral.yaml'), 'utf8')) as { rules: Record<string, unknown> };
    const houseRules = Object.keys(ruleset.rules).filter((name) => name.startsWith('house-'));
    expect(houseRules.sort()).toEqual(Object.keys(CASES).sort());
  });

  test('the good fixture passes the whole ruleset (spectral:oas and house rules)', async () => {
    const findings = await runSpectral(fixture('good.yaml'));
    expect(findings.map(formatFinding)).toEqual([]);
  });

  test.each(Object.entries(CASES))('%s fires on its defect, and no other house rule does', async (rule, [file, where]) => {
    const findings = await runSpectral(fixture(file));
    const house = findings.filter((f) => f.rule.startsWith('house-'));
    expect(house.map((f) => `${f.rule} ${f.severity} at ${f.where}`)).toEqual([`${rule} error at ${where}`]);
  });
});
