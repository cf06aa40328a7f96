// The docs an assistant reads (llmstxt.org): the site publishes llms.txt (an index whose every
// link is a file of the site) and llms-full.txt (every operation, event type, error code and
// schema of the contract as plain Markdown), and the landing page links both. Every expectation
// is derived from generated/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorCodeCatalog } from '../docs/build/error-codes.mjs';
import { documentedEventTypes } from '../docs/build/events-page.mjs';
import { llmsFullText } from '../docs/build/llms-txt.mjs';
import { listOperations, loadAsyncApi, loadOpenApi } from './helpers/contract.js';
import { builtDocsSite, type BuiltSite } from './helpers/docs-site.js';

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();
let site: BuiltSite;
const read = (file: string) => readFileSync(path.join(site.dir, file), 'utf8');

beforeAll(async () => {
  site = await builtDocsSite();
});

describe('llms.txt and llms-full.txt', () => {
  it('llms.txt is an llmstxt.org index: a title, a summary, sections of links, each to a file of the site', () => {
    const index = read('llms.txt');
    expect(index.split('\n')[0]).toBe(`# ${openapi.info.title}`);
    expect(index).toMatch(/^> \S/m);
    expect(index).toMatch(/^## /m);
    const links = [...index.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1]!);
    expect(links).toContain('llms-full.txt');
    expect(links).toContain('openapi.json');
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect(existsSync(path.join(site.dir, link)), link).toBe(true);
  });

  it('llms-full.txt holds every operation, event type, error code and schema of the contract', () => {
    const full = read('llms-full.txt');
    expect(full).toBe(llmsFullText({ openapi, asyncapi }));
    for (const { method, path: route, operation } of listOperations(openapi)) {
      expect(full, operation.operationId).toContain(`### ${operation.operationId}: ${method.toUpperCase()} ${route}`);
      expect(full).toContain(String(operation.summary).replace(/\.$/, ''));
    }
    for (const { type } of documentedEventTypes(asyncapi)) expect(full, type).toContain(`### ${type}\n`);
    for (const { code, status } of errorCodeCatalog(openapi).codes) expect(full, code).toContain(`| \`${code}\` | ${status} |`);
    for (const name of Object.keys(openapi.components.schemas)) expect(full, name).toContain(`### ${name}\n`);
    // Plain Markdown: no HTML outside code spans (where `<field>` is a placeholder).
    expect(full.replace(/`[^`\n]*`/g, '')).not.toMatch(/<\/?(?:p|a|div|span|code|pre|br|strong|em|ul|ol|li|table|tr|td|h\d)\b[^>]*>/i);
  });

  it('the landing page links both', () => {
    const index = read('index.html');
    expect(index).toContain('href="llms.txt"');
    expect(index).toContain('href="llms-full.txt"');
  });
});
