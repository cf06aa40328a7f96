// Docs an assistant can read (llmstxt.org): `llms.txt`, a short Markdown index of the site and
// the machine-readable files, and `llms-full.txt`, the whole contract as plain Markdown: every
// operation (what it does, the part it cites, its parameters, body and answers), every event
// type, every error code with what a client should do, and every schema's fields. Generated from
// generated/ at each build, never written by hand. A small generator rather than a library:
// @scalar/openapi-to-markdown, the maintained one, declares Node 22 in every release, and none
// reads the AsyncAPI events or the error-code catalog.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCodeCatalog } from './error-codes.mjs';
import { documentedEventTypes } from './events-page.mjs';
import { listOperations, referenceRoute } from './contract.mjs';
import { SITE_PAGES } from './layout.mjs';

const schemaName = (ref) => ref.split('/').pop();
const oneLine = (text) => String(text ?? '').replace(/\s*\n\s*/g, ' ').trim();
const paragraph = (text) => String(text ?? '').trim();

function resolve(doc, node) {
  let current = node;
  for (let hops = 0; current?.$ref && hops < 20; hops += 1) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current ?? {};
}

/** A schema in a few words: `Message`, `string (date-time)`, `array of Message`, `one of A, B`, `"sms" | "whatsapp"`. */
export function typeText(schema) {
  if (!schema || typeof schema !== 'object') return 'any';
  if (schema.$ref) return `\`${schemaName(schema.$ref)}\``;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) return `${key === 'oneOf' ? 'one of' : 'any of'} ${schema[key].map(typeText).join(', ')}`;
  }
  if (Array.isArray(schema.allOf)) return `all of ${schema.allOf.map(typeText).join(', ')}`;
  const types = [schema.type ?? (schema.properties ? 'object' : 'any')].flat();
  return types
    .map((type) => (type === 'array' ? `array of ${typeText(schema.items)}` : type === 'string' && schema.format ? `string (${schema.format})` : type))
    .join(' or ');
}

/** The fields of an object schema, one line each: `- \`name\` (type, required): description`. */
function fieldLines(schema, indent = '') {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `${indent}- \`${name}\` (${typeText(property)}${required.has(name) ? ', required' : ''})${property.description ? `: ${oneLine(property.description)}` : ''}`,
  );
}

function schemaSection(name, schema) {
  const lines = [`### ${name}`, ''];
  if (schema.description) lines.push(paragraph(schema.description), '');
  lines.push(`Type: ${typeText({ ...schema, title: undefined, description: undefined })}.`);
  const fields = fieldLines(schema);
  if (fields.length) lines.push('', ...fields);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    for (const branch of schema[key] ?? []) {
      if (branch.$ref || !branch.properties) continue;
      lines.push('', `${key === 'allOf' ? 'With' : 'Branch'}${branch.title ? ` ${branch.title}` : ''}:`, ...fieldLines(branch));
    }
  }
  return lines.join('\n');
}

function operationSection(openapi, op) {
  const { operation } = op;
  const lines = [`### ${op.operationId}: ${op.method.toUpperCase()} ${op.path}`, '', `${oneLine(operation.summary)}.${operation['x-source'] ? ` Interface specification ${String(operation['x-source']).includes(',') ? 'parts' : 'part'} ${operation['x-source']}.` : ''}`];
  if (operation.description) lines.push('', paragraph(operation.description));
  const security = operation.security ?? openapi.security ?? [];
  lines.push('', `Authentication: ${security.length && !security.some((s) => Object.keys(s).length === 0) ? '`Authorization: Bearer <API key>`' : 'none'}.`);
  const parameters = [...(op.pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(openapi, p));
  if (parameters.length) {
    lines.push('', 'Parameters:');
    for (const p of parameters) lines.push(`- \`${p.name}\` (${p.in}, ${typeText(p.schema)}${p.required ? ', required' : ''})${p.description ? `: ${oneLine(p.description)}` : ''}`);
  }
  if (operation.requestBody) {
    const body = resolve(openapi, operation.requestBody);
    for (const [media, content] of Object.entries(body.content ?? {})) lines.push('', `Request body (${media}${body.required ? ', required' : ''}): ${typeText(content.schema)}.${body.description ? ` ${oneLine(body.description)}` : ''}`);
  }
  lines.push('', 'Responses:');
  for (const [status, raw] of Object.entries(operation.responses ?? {})) {
    const response = resolve(openapi, raw);
    const content = response.content?.['application/json'];
    const examples = Object.keys(content?.examples ?? {});
    lines.push(`- ${status}: ${oneLine(response.description)}${content ? ` Body: ${typeText(content.schema)}.` : ''}${examples.length ? ` Examples: ${examples.join(', ')}.` : ''}`);
  }
  lines.push('', `Reference: ${referenceRoute(op)}`);
  return lines.join('\n');
}

/** The `type` const of each `AnyEvent` branch, with its schema name (the leaves of nested unions). */
function eventSchemaNames(openapi) {
  const names = new Map();
  const walk = (branches) => {
    for (const branch of branches ?? []) {
      const schema = resolve(openapi, branch);
      if (Array.isArray(schema.oneOf)) walk(schema.oneOf);
      const type = resolve(openapi, schema.properties?.type ?? schema.allOf?.map((s) => resolve(openapi, s).properties?.type).find(Boolean));
      if (type && 'const' in type && branch.$ref) names.set(type.const, schemaName(branch.$ref));
    }
  };
  walk(openapi.components.schemas.AnyEvent?.oneOf);
  return names;
}

/** `llms-full.txt`: the contract as Markdown. */
export function llmsFullText({ openapi, asyncapi }) {
  const operations = listOperations(openapi).filter((op) => op.path);
  const events = documentedEventTypes(asyncapi);
  const eventSchemas = eventSchemaNames(openapi);
  const { codes, other } = errorCodeCatalog(openapi);
  const scheme = Object.values(openapi.components.securitySchemes ?? {})[0];
  return [
    `# ${openapi.info.title}: the contract as Markdown`,
    '',
    `> ${oneLine(openapi.info.summary)}`,
    '',
    `Generated from the bundled OpenAPI ${openapi.openapi} and AsyncAPI ${asyncapi.asyncapi} descriptions of numbers-api-contract ${openapi.info.version} (interface version ${openapi.info['x-api-version'] ?? 'v1'}); every "part N" is a part of the interface specification. Machine-readable: openapi.json, asyncapi.yaml. An MCP server of these operations: \`npx numbers-api mcp\`.`,
    '',
    paragraph(openapi.info.description),
    '',
    '## Authentication',
    '',
    paragraph(scheme?.description),
    '',
    `## Operations (${operations.length})`,
    '',
    operations.map((op) => operationSection(openapi, op)).join('\n\n'),
    '',
    `## Events (${events.length} documented types)`,
    '',
    'Every event has the envelope `Event` (see Schemas); `data` depends on `type`. Delivery channels:',
    '',
    ...Object.values(asyncapi.channels ?? {}).map((channel) => `- ${channel.title} (${oneLine(channel['x-delivery-guarantee'] ?? '')}): ${oneLine(channel.description).replace(/^\*\*Delivery guarantee:[^*]*\*\*\s*/, '')}`),
    '',
    events.map(({ type, description }) => [`### ${type}`, '', oneLine(description), ...(eventSchemas.has(type) ? ['', `Schema: \`${eventSchemas.get(type)}\`.`] : [])].join('\n')).join('\n\n'),
    '',
    `## Error codes (${codes.length})`,
    '',
    'The error body is always `Error` (part 7): branch on the HTTP status first, then read `error` (a string, or an object of field errors) and `code`.',
    '',
    '| Code | Status | When | What a client should do |',
    '| --- | --- | --- | --- |',
    ...codes.map(({ code, status, description, action }) => `| \`${code}\` | ${status} | ${oneLine(description)} | ${oneLine(action)} |`),
    ...(other ? [`| any other | any | ${oneLine(other.description)} | Treat it by its HTTP status. |`] : []),
    '',
    `## Schemas (${Object.keys(openapi.components.schemas).length})`,
    '',
    Object.entries(openapi.components.schemas)
      .map(([name, schema]) => schemaSection(name, schema))
      .join('\n\n'),
    '',
  ].join('\n');
}

/** `llms.txt`: the index (llmstxt.org): the title, a summary, then lists of links with a note each. */
export function llmsIndexText({ openapi, asyncapi }, pages) {
  const operations = listOperations(openapi).filter((op) => op.path);
  const page = (file, note) => {
    const found = pages.find((p) => p.file === file);
    return found ? `- [${found.title}](${file}): ${note ?? found.summary ?? found.title}` : undefined;
  };
  return [
    `# ${openapi.info.title}`,
    '',
    `> ${oneLine(openapi.info.summary)}`,
    '',
    `The contract of the service (numbers-api-contract ${openapi.info.version}): ${operations.length} operations under \`/api/v1\` with \`Authorization: Bearer <API key>\` (keys begin \`sk_live_\`), ${documentedEventTypes(asyncapi).length} documented event types, one error shape (\`Error\`: status, \`error\`, \`code\`). A stateful mock (\`npx numbers-api mock\`) and an MCP server (\`npx numbers-api mcp\`) are built from it.`,
    '',
    '## Docs',
    '',
    `- [The whole contract as Markdown](llms-full.txt): every operation, event type, error code and schema, in one file`,
    ...pages.filter((p) => p.file !== 'index.html').map((p) => page(p.file)).filter(Boolean),
    '',
    '## Machine-readable',
    '',
    '- [openapi.json](openapi.json): the bundled OpenAPI description (JSON)',
    '- [openapi.yaml](openapi.yaml): the same, YAML',
    '- [asyncapi.yaml](asyncapi.yaml): the events (AsyncAPI)',
    '',
  ].join('\n');
}

/** Writes both files into the site folder; `titles` are the guides' titles by page file, as the build read them. */
export async function writeLlmsFiles(out, contract, titles = new Map()) {
  const pages = SITE_PAGES.filter((p) => !p.hidden).map((p) => ({ file: p.file, title: p.title ?? titles.get(p.file) ?? p.nav, summary: p.summary }));
  await writeFile(path.join(out, 'llms.txt'), llmsIndexText(contract, pages));
  await writeFile(path.join(out, 'llms-full.txt'), llmsFullText(contract));
}
