// Verdicts are data (issue 28): a break of the contract travels as a structured Verdict
// (src/contract/verdict.ts) from the validator to every report, and is put into words only at the
// edge. So no code of the package reads meaning back out of a message: this scans src/ and
// conformance/ for a regular expression, or a comparison with a literal, applied to a message
// (`/required property '(.+)'/.exec(violation.message)`, `message.replace(/^Request body /, '')`,
// `violation.message === 'must have a JSON body'`) and finds none; and the contract validator is
// the one place that sets up ajv.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';
import { messageReads } from './helpers/message-reads.js';

/** The TypeScript files under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(path.join(repoRoot, at))) {
      const file = path.join(at, name);
      if (statSync(path.join(repoRoot, file)).isDirectory()) walk(file);
      else if (file.endsWith('.ts')) out.push(file);
    }
  };
  walk(dir);
  return out;
}

const scanned = [...sources('src'), ...sources('conformance')].map((file) => ({ file, text: readFileSync(path.join(repoRoot, file), 'utf8') }));

describe('verdicts are data', () => {
  it('no code of src/ or conformance/ applies a regular expression (or a comparison) to a message', () => {
    expect(scanned.length).toBeGreaterThan(100);
    expect(messageReads(scanned)).toEqual([]);
  });

  it('the scan finds each way a message was read before issue 28', () => {
    // Lines of the old gate, field errors and respond.ts (each one read Prism's words back).
    const old = [
      "const missing = MISSING_PROPERTY.exec(violation.message)?.[1];",
      "const message = violation.message.replace(/^Request body /, '');",
      "if (/at most \\d+ bytes/.test(message)) return 'too large';",
      "const named = REQUIRED.exec(violation.message) ?? ADDITIONAL.exec(violation.message);",
      "if (violation.message !== NOT_IN_ENUM) return '';",
      "if (where === 'body' && violation.message === 'must have a JSON body') return body;",
      "const whole = bodyViolations.find((violation) => !/required property|exactly one/.test(violation.message));",
    ];
    expect(messageReads(old.map((text, i) => ({ file: `old-${i}.ts`, text })))).toHaveLength(old.length);
  });

  it('ajv is set up in one module: the contract validator', () => {
    const setUps = scanned.filter(({ text }) => /new Ajv\w*\(/.test(text)).map(({ file }) => file);
    expect(setUps).toEqual([path.join('src', 'contract', 'contract-validator.ts')]);
    const tests = sources('test').filter((file) => !file.endsWith('verdicts-as-data.test.ts') && /new Ajv\w*\(|from 'ajv/.test(readFileSync(path.join(repoRoot, file), 'utf8')));
    expect(tests).toEqual([]);
  });
});
