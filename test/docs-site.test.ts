// The docs site as files: built once per run (test/helpers/docs-site.ts), then checked against the
// bundled descriptions. Every expectation is derived from generated/, never listed by hand.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MODULE, CODE_SAMPLE_LANGUAGES, withCodeSamples } from '../docs/build/code-samples.mjs';
import { tryItCatalog } from '../docs/build/try-it-catalog.mjs';
import { operationLinker } from '../docs/build/contract.mjs';
import { checkSite } from '../docs/build/link-check.mjs';
import { SITE_PAGES } from '../docs/build/layout.mjs';
import { listOperations, loadAsyncApi, loadDereferencedOpenApi, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';
import { builtDocsSite, type BuiltSite } from './helpers/docs-site.js';
import { writeSourceConsumerProject } from '../scripts/consumer-tsconfig.mjs';

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();
let site: BuiltSite;
const read = (file: string) => readFileSync(path.join(site.dir, file), 'utf8');

/** Every JSON pointer marked `x-inferred: true` in a document (an oracle independent of the build). */
function inferredPointers(doc: JsonObject): string[] {
  const out: string[] = [];
  const walk = (node: unknown, pointer: string) => {
    if (!node || typeof node !== 'object') return;
    if ((node as JsonObject)['x-inferred'] === true) out.push(pointer);
    for (const [k, v] of Object.entries(node)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  walk(doc, '#');
  return out;
}

const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

beforeAll(async () => {
  site = await builtDocsSite();
});

describe('docs build', () => {
  it('writes every page of the site navigation, and the descriptions for download', () => {
    expect(site.pages).toEqual(SITE_PAGES.map((p) => p.file));
    for (const file of [...site.pages, 'assets/site.css', 'openapi.yaml', 'openapi.json', 'asyncapi.yaml']) {
      expect(() => read(file), file).not.toThrow();
    }
  });

  it('passes its own link check: no dead internal link or anchor, nothing loaded from another host', async () => {
    const result = await checkSite(site.dir, { openapi });
    expect(result.problems).toEqual([]);
    expect(result.links).toBeGreaterThan(100);
  });

  it('link check catches a dead page, a dead anchor, a dead reference route and an outside script', async () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'docs-linkcheck-'));
    try {
      cpSync(site.dir, copy, { recursive: true });
      const file = path.join(copy, 'limits.html');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace(
          '</main>',
          '<a href="nowhere.html">x</a><a href="errors.html#no-such-anchor">y</a><a href="reference.html#/calls/nosuchop">z</a><script src="https://cdn.example.net/x.js"></script></main>',
        ),
      );
      const { problems } = await checkSite(copy, { openapi });
      expect(problems.map((p) => p.link).sort()).toEqual(
        ['errors.html#no-such-anchor', 'https://cdn.example.net/x.js', 'nowhere.html', 'reference.html#/calls/nosuchop'].sort(),
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('inlines Redoc and its assets: the Redoc pages name no CDN script or image', () => {
    for (const page of ['reference.html', 'asyncapi.html']) {
      const html = read(page);
      // Scripts only from the site's own assets/ (search, and the try-it consoles on the reference).
      const sources = [...html.matchAll(/<script[^>]+src="([^"]*)"/gi)].map((m) => m[1]);
      expect(sources.filter((src) => !/^assets\/(search|try-it)\.js$/.test(src)), page).toEqual([]);
      expect(html, page).not.toContain('cdn.redoc.ly');
      expect(html, page).toContain('<nav class="site-nav"');
    }
  });

  it('the landing page counts the operations as the contract has them, and shows how to try them', () => {
    const index = read('index.html');
    const operations = listOperations(openapi).length;
    const webhooks = listOperations(openapi, 'webhooks').length;
    expect(index).toContain(`(${operations} operations,`);
    expect(index).toContain(`the ${webhooks} webhook delivery`);
    expect(index).toContain('id="try-it"');
  });

  it('ships the try-it consoles and the search: the scripts, the service worker, an index of every kind of page', () => {
    for (const file of ['assets/try-it.js', 'assets/search.js', 'assets/search-index.js', 'mockServiceWorker.js']) expect(() => read(file), file).not.toThrow();
    const index = read('assets/search-index.js');
    for (const kind of ['"guide"', '"operation"', '"event"', '"error code"', '"test value"']) expect(index, kind).toContain(`"kind":${kind}`);
    // Every guide that says "Try it:" gets a console mount per operation it names.
    expect((read('getting-a-key.html').match(/data-try-it="/g) ?? []).length).toBe(5);
    expect(read('getting-a-key.html')).toContain('<script src="assets/try-it.js" defer></script>');
    // The servers box of Redoc shows descriptions as plain text: no Markdown ticks in the copy it renders.
    const inlined = JSON.parse(/const __redoc_definition = (.*);\n/.exec(read('reference.html'))![1]!) as JsonObject;
    expect(JSON.stringify(inlined.servers)).not.toContain('`');
  });

  it("the site's browser scripts (try-it, search) type-check against the DOM and this package", () => {
    const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', path.join(repoRoot, 'docs/build/browser/tsconfig.json')], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('rejects a bad flag with a clear message and a non-zero exit', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'docs/build/build.mjs'), '--outt', 'x'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown argument "--outt"');
  });
});

describe('API reference', () => {
  const pathOperations = listOperations(openapi);

  it('gives every operation samples in TypeScript (this package\'s client), curl, JavaScript, Python, Go and Java, of its path and first example', async () => {
    const dereferenced = loadDereferencedOpenApi();
    const { document, count } = await withCodeSamples(openapi, tryItCatalog(dereferenced));
    expect(count).toBe(pathOperations.length);
    expect(CODE_SAMPLE_LANGUAGES.map((l) => l.label)).toEqual(['TypeScript', 'curl', 'JavaScript', 'Python', 'Go', 'Java']);
    // The reference shows the local mock (npm start) first, and its samples address it.
    expect(document.servers[0].url).toBe('http://127.0.0.1:4010');
    for (const { method, path: p, operation } of pathOperations) {
      const samples = document.paths[p][method]['x-codeSamples'] as { lang: string; label: string; source: string }[];
      expect(samples.map((s) => s.label), `${method} ${p}`).toEqual(CODE_SAMPLE_LANGUAGES.map((l) => l.label));
      const source = (label: string) => samples.find((s) => s.label === label)!.source;
      expect(source('TypeScript'), `${method} ${p}`).toContain(`from '${CLIENT_MODULE}'`);
      expect(source('TypeScript'), `${method} ${p}`).toContain(`api.${method.toUpperCase()}('${p}'`);
      expect(source('curl'), `${method} ${p}`).toContain(`curl --request ${method.toUpperCase()}`);
      const [firstExample] = Object.keys(dereferenced.paths[p][method].requestBody?.content?.['application/json']?.examples ?? {});
      for (const { label } of CODE_SAMPLE_LANGUAGES) {
        // The path up to its first parameter (filled with the example's value), the key never written out.
        expect(source(label), `${label} ${method} ${p}`).toContain(p.split('{')[0]);
        expect(source(label), `${label} ${method} ${p}`).not.toMatch(/sk_live_|__NUMBERS_API_KEY__/);
        // Which example a sample shows: a library sample says it in its first line.
        if (firstExample) expect(label === 'TypeScript' ? source(label) : source(label).split('\n')[0], `${label} ${method} ${p}`).toContain(`example "${firstExample}"`);
        if (operation.security?.length !== 0) expect(source(label), `${label} ${method} ${p}`).toContain('NUMBERS_API_KEY');
        expect(source(label), `${label} ${method} ${p}`).toContain('127.0.0.1:4010');
        expect(source(label), `${label} ${method} ${p}`).not.toContain('api.example.com');
      }
      // Each on the scheme of the URL it names: plain HTTP for the mock.
      expect(source('Python'), `${method} ${p}`).toContain('conn = http.client.HTTPConnection("127.0.0.1:4010")');
      expect(source('curl'), `${method} ${p}`).toMatch(/--url '?http:\/\/127\.0\.0\.1:4010\//);
    }
    // The copy carries the samples; the committed bundle is left alone.
    expect(JSON.stringify(openapi)).not.toContain('x-codeSamples');
  });

  it("code samples of the reference and the TypeScript blocks of the README and the guides type-check against this package", async () => {
    const dir = mkdtempSync(path.join(repoRoot, 'node_modules/.docs-samples-'));
    try {
      const { document } = await withCodeSamples(openapi, tryItCatalog(loadDereferencedOpenApi()));
      for (const { method, path: p, operation } of pathOperations) {
        const ts = (document.paths[p][method]['x-codeSamples'] as { lang: string; source: string }[]).find((s) => s.lang === 'TypeScript')!;
        writeFileSync(path.join(dir, `sample-${operation.operationId}.mts`), ts.source);
      }
      let blocks = 0;
      // The guides' blocks, and the README's (issue 40: the README keeps one short example).
      for (const guide of ['../../README.md', ...readdirSync(path.join(repoRoot, 'docs/guides')).filter((f) => f.endsWith('.md'))]) {
        const markdown = readFileSync(path.join(repoRoot, 'docs/guides', guide), 'utf8');
        for (const [i, m] of [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].entries()) {
          // A block that names its file in its first line (`// test/setup-api-mock.ts: ...`) is
          // written under that name, so another block can import it (`./setup-api-mock.js`).
          const named = /^\/\/ (?:[\w./-]*\/)?([\w-]+)\.ts\b/.exec(m[1]!)?.[1];
          writeFileSync(path.join(dir, named ? `${named}.ts` : `guide-${path.basename(guide, '.md')}-${i}.mts`), m[1]);
          blocks += 1;
        }
      }
      expect(blocks).toBeGreaterThan(3);
      // The samples import the published names; here they are the package's sources (every name,
      // the root one too: dist/ is not built in a fresh clone).
      writeSourceConsumerProject(dir, repoRoot, { include: ['*.mts', '*.ts'] });
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('renders the description as bundled: the inlined schemas are those of generated/openapi.json, no compat rewrite', () => {
    const inlined = /const __redoc_definition = (.*);\n/.exec(read('reference.html'))?.[1];
    expect(inlined).toBeDefined();
    const definition = JSON.parse(inlined!) as JsonObject;
    // Redoc 3.0.1 fails on a boolean subschema; the bundle has none, so nothing is rewritten for it.
    expect(definition.components.schemas.SendMessageRequest).toEqual(openapi.components.schemas.SendMessageRequest);
  });

  it('carries the description with its tag groups and every operation into the page', () => {
    const html = read('reference.html');
    for (const group of openapi['x-tagGroups'] as { name: string }[]) expect(html).toContain(JSON.stringify(group.name).slice(1, -1));
    for (const { operation } of [...pathOperations, ...listOperations(openapi, 'webhooks')]) {
      expect(html, operation.operationId).toContain(`"operationId":"${operation.operationId}"`);
    }
  });
});

describe('events page', () => {
  const html = () => read('events.html');

  it('shows every channel of the AsyncAPI document with its delivery guarantee', () => {
    for (const [key, channel] of Object.entries(asyncapi.channels as Record<string, JsonObject>)) {
      expect(html(), key).toContain(`data-channel="${key}"`);
      expect(html(), key).toContain(attr(channel['x-delivery-guarantee']));
    }
  });

  it('shows every documented event type with all of its examples, and the envelope fields', () => {
    const types = (asyncapi.components.schemas.EventType.anyOf as JsonObject[]).filter((v) => 'const' in v).map((v) => v.const as string);
    expect(types.length).toBeGreaterThanOrEqual(4);
    for (const type of types) expect(html(), type).toContain(`data-event-type="${type}"`);
    for (const message of Object.values(asyncapi.components.messages as Record<string, JsonObject>)) {
      for (const example of (message.examples ?? []) as JsonObject[]) {
        if (typeof example.payload?.type === 'string') expect(html(), example.name).toContain(`<strong>${example.name}</strong>`);
      }
    }
    for (const field of Object.keys(asyncapi.components.schemas.Event.properties)) expect(html()).toContain(`<code>${field}</code>`);
  });

  it('states the local fan-out target rules (loopback hosts, options, one retry)', () => {
    const page = html();
    for (const host of ['127.0.0.1', '0.0.0.0', 'localhost', '::1', '[::1]']) expect(page).toContain(`<code>${host}</code>`);
    for (const option of ['--secret', '--signature-header', '--bearer', '--timeout']) expect(page).toContain(option);
    expect(page).toMatch(/one retry/i);
  });
});

describe('guides', () => {
  it('draw every state machine of x-state-machines as an inline SVG naming each of its states', () => {
    const html = read('state-machines.html');
    const machines = openapi['x-state-machines'] as Record<string, { transitions: { from: string; to: string }[] }>;
    expect(Object.keys(machines).length).toBeGreaterThanOrEqual(7);
    for (const [name, machine] of Object.entries(machines)) {
      const svg = new RegExp(`<svg[^>]*data-machine="${name}"[\\s\\S]*?</svg>`).exec(html)?.[0];
      expect(svg, name).toBeDefined();
      const texts = [...svg!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&#45;/g, '-').replace(/&amp;/g, '&')).join(' ');
      for (const t of machine.transitions) {
        for (const state of [t.from, t.to]) {
          // Graphviz wraps long names onto several <text> lines: check each word.
          for (const word of state.split(/\s+/)) expect(texts, `${name}: ${state}`).toContain(word);
        }
      }
    }
    expect(read('getting-a-key.html')).toContain('data-machine="signUp"');
  });

  it('list every ErrorCode with its status and what a client should do', () => {
    const html = read('errors.html');
    const codes = (openapi.components.schemas.ErrorCode.anyOf as JsonObject[]).filter((c) => 'const' in c);
    for (const code of codes) {
      const row = new RegExp(`<tr id="code-${code.const}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';
      expect(row, code.const).toContain(`<td>${code['x-status']}</td>`);
      expect(row.replace(/<[^>]+>/g, ''), code.const).toContain(String(code['x-client-action']).replace(/`/g, '').slice(0, 30));
    }
  });

  it('link every operation they name to the reference, and refuse one the contract lacks', () => {
    const link = operationLinker(openapi);
    expect(link('POST /api/v1/calls')).toBe('reference.html#/calls/createcall');
    expect(link('not an operation')).toBeNull();
    expect(() => link('POST /api/v1/no-such-thing')).toThrow(/names no operation/);
    expect(read('retries-and-idempotency.html')).toContain('<a href="reference.html#/calls/createcall"><code>POST /api/v1/calls</code></a>');
  });
});

describe('unshown details page', () => {
  it('lists every x-inferred of both descriptions with its reason', () => {
    const html = read('unshown.html');
    for (const [name, doc] of [
      ['OpenAPI', openapi],
      ['AsyncAPI', asyncapi],
    ] as const) {
      const pointers = inferredPointers(doc);
      expect(pointers.length, name).toBeGreaterThan(0);
      for (const pointer of pointers) expect(html, `${name} ${pointer}`).toContain(`data-pointer="${attr(pointer)}"`);
    }
    expect(html).toContain(attr(openapi['x-state-machines'].tenDlc['x-inferred-reason']).replace(/`/g, '').slice(0, 20));
  });
});
