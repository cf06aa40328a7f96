#!/usr/bin/env node
// npm run generate: bundle spec/ (scripts/bundle.mjs), then derive the TypeScript surface of the
// package from the bundled description, never from the split files:
//   generated/types/openapi.ts    openapi-typescript 7 output: `paths`, `webhooks`, `components`,
//                                 `$defs`, `operations` (types only)
//   generated/types/constants.ts  the few runtime values the client and the event helpers need
//                                 (server addresses, documented event types, documented error
//                                 codes), read from the same bundle so nothing is restated by hand
//
// Both files are committed. The output is deterministic (the bundle is; openapi-typescript emits
// in document order; no dates or versions in the text), and test/client-generated-drift.test.ts
// regenerates into a temporary directory and compares byte for byte.
//
// Usage: node scripts/generate.mjs [--out <dir>] [--bundle-out <dir>] [--no-bundle]
//   --out <dir>         where the type files go (default: generated/types/)
//   --bundle-out <dir>  where the bundle is written and read from (default: generated/)
//   --no-bundle         use the bundle already in --bundle-out instead of bundling spec/ again

import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { bundleAll, BundleError, runWriter, writeOutputs } from './bundle.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export class GenerateError extends Error {}

const USAGE = `Usage: node scripts/generate.mjs [--out <dir>] [--bundle-out <dir>] [--no-bundle]

  --out <dir>         where to write the type files (default: generated/types/)
  --bundle-out <dir>  where to write (and read) the bundled description (default: generated/)
  --no-bundle         do not bundle spec/ first; read the bundle already in --bundle-out
`;

/**
 * openapi-typescript options, each chosen on purpose (defaults named where we keep them, so a
 * reader sees the whole decision):
 */
export const TYPE_OPTIONS = {
  // `export type paths = {...}` rather than `export interface paths`: an interface can be widened
  // by declaration merging from any consumer's `declare module`, and the contract must not be
  // silently extendable. Type aliases are also assignable to `Record<string, unknown>`.
  exportType: true,
  // No `SchemaMessage`-style root exports: src/index.ts exports a curated set of friendly aliases
  // (`Message`, `Call`, `ErrorBody`, ...) derived from `components`; a second, generated set of
  // names would double the surface and export a type named `Error` that shadows the global.
  rootTypes: false,
  // `type: object` with no listed properties means "fields not shown" in this contract (part 2
  // repeatedly), so it must read as `Record<string, unknown>`, not the default
  // `Record<string, never>`, which would reject any field the service does return.
  emptyObjectsUnknown: true,
  // Schemas stay open on the wire (no `additionalProperties: false` where the interface
  // specification says "not shown"), but the types keep TypeScript's excess-property check:
  // adding `[key: string]: unknown` to every object would let a misspelt request field
  // (`maxCallDurationSecond`) compile. An explicit `additionalProperties` in a schema is honoured.
  additionalProperties: false,
  // v7 defaults to making every property that has a `default` non-optional, in request bodies as
  // much as in responses. A default says what the service assumes when the field is omitted, not
  // that a caller must send it or that a response always carries it, so keep `?`.
  defaultNonNullable: false,
  // String unions, not TypeScript `enum`s: JSON values must be assignable without importing an
  // enum object, `enum` emits runtime code (and is not erasable syntax), and a union is what a
  // consumer's `switch` narrows on.
  enum: false,
  // No generated `*Values` arrays: the only value lists needed at run time are the ones in
  // constants.ts (event types, error codes), which are the open sets an array of a closed enum
  // would not describe anyway.
  enumValues: false,
  // Keep the description's order (components are already sorted by the bundler; properties keep
  // the order the spec presents them in, which is the reading order of the reference).
  alphabetize: false,
  // `/api/v1/numbers/{id}` stays a literal key: openapi-fetch looks paths up by that key.
  pathParamsAsTypes: false,
  // Responses are plain data a consumer may copy and adjust; readonly types would get in the way.
  immutable: false,
  // Nothing is deprecated yet; if something is, the types should still describe it until removed.
  excludeDeprecated: false,
  // Required means `required:`; never assume more.
  propertiesRequiredByDefault: false,
  silent: true,
};

/**
 * Open value sets (`anyOf` of `const` branches plus one plain `type: string` branch, the pattern
 * this contract uses for "these values are documented, others may appear": `ErrorCode`,
 * `EventType`) would come out as `string | "a" | "b"`, which TypeScript collapses to `string`,
 * losing the documented values from completion and from the reader. Emit
 * `"a" | "b" | (string & {})` instead: the same set of accepted strings, with the known ones kept.
 */
export function openEnumTransform(schemaObject) {
  const branches = schemaObject?.anyOf;
  if (!Array.isArray(branches) || branches.length < 2) return undefined;
  const consts = [];
  let openBranches = 0;
  for (const branch of branches) {
    if (branch && typeof branch.const === 'string') consts.push(branch.const);
    else if (branch && branch.type === 'string' && !('const' in branch) && !('enum' in branch) && !('pattern' in branch) && !('$ref' in branch)) openBranches += 1;
    else return undefined;
  }
  if (consts.length === 0 || openBranches !== 1) return undefined;
  const f = ts.factory;
  const literals = consts.map((value) => f.createLiteralTypeNode(f.createStringLiteral(value)));
  const anyOtherString = f.createParenthesizedType(
    f.createIntersectionTypeNode([f.createKeywordTypeNode(ts.SyntaxKind.StringKeyword), f.createTypeLiteralNode([])]),
  );
  return f.createUnionTypeNode([...literals, anyOtherString]);
}

const BANNER = `// Generated by scripts/generate.mjs (openapi-typescript ${readPackageVersion('openapi-typescript')}) from generated/openapi.json.
// Do not edit: change spec/ and run \`npm run generate\`.
`;

function readPackageVersion(name) {
  const file = path.join(repoRoot, 'node_modules', name, 'package.json');
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

/**
 * A schema no value satisfies (`not: {}`, beside a `type` other generators read: the forbidden
 * fields of SendMessageRequest's branches, part 4.5) is `never`, as a `false` schema is: the field
 * may not be sent at all. openapi-typescript ignores `not` and would type it by its `type` alone.
 */
export function forbiddenTransform(schemaObject) {
  const not = schemaObject?.not;
  if (not && typeof not === 'object' && !Array.isArray(not) && Object.keys(not).length === 0) {
    return ts.factory.createKeywordTypeNode(ts.SyntaxKind.NeverKeyword);
  }
  return undefined;
}

/** openapi-typescript over the bundled description (an object: no file or network lookups). */
export async function generateOpenapiTypes(document) {
  const transform = (schemaObject, options) => forbiddenTransform(schemaObject) ?? openEnumTransform(schemaObject, options);
  const ast = await openapiTS(structuredClone(document), { ...TYPE_OPTIONS, transform });
  return `${BANNER}\n${astToString(ast)}`;
}

/** Default value of every variable substituted into a server URL template. */
function resolveServerUrl(server) {
  return server.url.replace(/\{([^}]+)\}/g, (_, name) => {
    const value = server.variables?.[name]?.default;
    if (typeof value !== 'string') throw new GenerateError(`server ${server.url}: variable "${name}" has no default`);
    return value;
  });
}

/**
 * The three addresses a client chooses between (parts 5.8, 9.3 and the local mock), picked by
 * what the description says about them rather than by position alone: the first server is the
 * OpenAPI default (the service base address), the legacy one is templated on `legacy_base_url`,
 * the mock is the one on a loopback host.
 */
export function extractServers(document) {
  const servers = document.servers ?? [];
  if (servers.length === 0) throw new GenerateError('the description has no servers');
  const base = servers[0];
  const legacy = servers.find((s) => s.url.includes('{legacy_base_url}'));
  const mock = servers.find((s) => {
    try {
      return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(resolveServerUrl(s)).hostname);
    } catch {
      return false;
    }
  });
  if (!legacy) throw new GenerateError('no server templated on {legacy_base_url} (parts 5.8, 9.3)');
  if (!mock) throw new GenerateError('no server on a loopback host (the local mock)');
  return { base: resolveServerUrl(base), legacy: resolveServerUrl(legacy), mock: resolveServerUrl(mock) };
}

/** The `const` values of an open value set schema (`anyOf` of consts plus `type: string`). */
export function extractConsts(document, schemaName) {
  const schema = document.components?.schemas?.[schemaName];
  if (!schema || !Array.isArray(schema.anyOf)) {
    throw new GenerateError(`components.schemas.${schemaName} is missing or not an anyOf of const values`);
  }
  const values = schema.anyOf.filter((b) => typeof b.const === 'string').map((b) => b.const);
  if (values.length === 0) throw new GenerateError(`components.schemas.${schemaName} lists no const values`);
  return values;
}

/** `"POST /api/v1/calls" -> "Idempotency-Key"`: each operation whose `x-effects` names the header of its idempotency key (part 7.2). */
export function extractIdempotencyKeys(document) {
  const keys = {};
  for (const [pathKey, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const header = operation?.['x-effects']?.idempotencyKey;
      if (typeof header === 'string') keys[`${method.toUpperCase()} ${pathKey}`] = header;
    }
  }
  return keys;
}

export function generateConstants(document) {
  const servers = extractServers(document);
  const eventTypes = extractConsts(document, 'EventType');
  const errorCodes = extractConsts(document, 'ErrorCode');
  const envelopeFields = document.components?.schemas?.Event?.required;
  if (!Array.isArray(envelopeFields) || envelopeFields.length === 0) throw new GenerateError('components.schemas.Event has no required fields');
  const list = (values) => `[\n${values.map((v) => `  ${JSON.stringify(v)},`).join('\n')}\n] as const`;
  return `${BANNER}
/** Server addresses from \`servers\` (variables at their defaults): the service base address, the legacy address older clients default to (parts 5.8, 9.3), and the local mock. */
export const serverUrls = {
  base: ${JSON.stringify(servers.base)},
  legacy: ${JSON.stringify(servers.legacy)},
  mock: ${JSON.stringify(servers.mock)},
} as const;

/** The event types the description documents (\`EventType\`, part 6). Others may arrive. */
export const documentedEventTypes = ${list(eventTypes)};

/** The machine codes the description documents (\`ErrorCode\`, part 7). Others may arrive. */
export const documentedErrorCodes = ${list(errorCodes)};

/** The fields every event envelope carries (\`Event.required\`, part 6), whatever its type. */
export const eventEnvelopeFields = ${list(envelopeFields)};

/** The operations a retry replays instead of repeating, by method and path, and the header that carries the key (\`x-effects.idempotencyKey\`, part 7.2). */
export const idempotencyKeyHeaders: Readonly<Record<string, string>> = ${JSON.stringify(extractIdempotencyKeys(document), null, 2)};
`;
}

export async function generateAll({ bundleOut, out, bundle = true }) {
  if (bundle) {
    await bundleAll({
      spec: path.join(repoRoot, 'spec/openapi.yaml'),
      asyncapi: existsSync(path.join(repoRoot, 'spec/asyncapi.yaml')) ? path.join(repoRoot, 'spec/asyncapi.yaml') : null,
      out: bundleOut,
    });
  }
  const bundled = path.join(bundleOut, 'openapi.json');
  if (!existsSync(bundled)) throw new GenerateError(`bundled description not found: ${bundled} (run without --no-bundle)`);
  const document = JSON.parse(readFileSync(bundled, 'utf8'));
  const outputs = {
    'openapi.ts': await generateOpenapiTypes(document),
    'constants.ts': generateConstants(document),
  };
  return writeOutputs(out, outputs);
}

function parseCommandLine(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        'bundle-out': { type: 'string' },
        'no-bundle': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new GenerateError(`${error.message}\n\n${USAGE}`);
  }
  if (values.help) return { help: true };
  for (const flag of ['out', 'bundle-out']) {
    if (values[flag] !== undefined && values[flag].trim() === '') throw new GenerateError(`--${flag} needs a non-empty value.\n\n${USAGE}`);
  }
  return {
    out: path.resolve(values.out ?? path.join(repoRoot, 'generated/types')),
    bundleOut: path.resolve(values['bundle-out'] ?? path.join(repoRoot, 'generated')),
    bundle: !values['no-bundle'],
  };
}

runWriter(import.meta, { name: 'generate', usage: USAGE, parse: parseCommandLine, write: generateAll, known: [GenerateError, BundleError] });
