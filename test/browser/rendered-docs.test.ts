// The contract as readers see it (issue 18), in real headless Chromium: for every operation,
// every property name of its request body and of each documented response body (the top-level
// fields of each body, in every branch of its union, and the branch titles themselves) appears on
// that operation's rendered page, in
//   - the reference `npm run docs` builds (Redoc, through Redocly build-docs),
//   - Scalar (@scalar/api-reference) and Stoplight Elements (@stoplight/elements), rendering the
//     bundle offline from their npm packages on a loopback server (no CDN: any request to another
//     host fails the test).
// Each renderer is held to the "Renderers" table of docs/guides/tool-compatibility.md, and shown
// to fail on a description that hides fields: the message-send body of release 1.0.0
// (generated/baseline/), whose fields stood beside its union (Redoc and Scalar do not draw them;
// Elements draws them but not the union's branches).
//
// Slow (every operation in three renderers, about two minutes): `npm run test:renderers`, which
// .ci/run calls after `npm test` (vitest.config.ts leaves it out of `npm test`). Without Chromium
// it skips with one line, unless REQUIRE_BROWSER=1 (as `npm run test:renderers` sets).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferencePage } from '../../docs/build/build.mjs';
import { matches, readTable } from '../../scripts/compat/table.js';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { loadDereferencedOpenApi, loadOpenApi, repoRoot, type JsonObject } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';
import { ELEMENTS, expectedFields, missingFields, operationsOf, REDOC, type Renderer, rendererPages, SCALAR, serveFiles, type StaticSite } from '../helpers/rendered-docs.js';

const SKIP = skipBrowser('rendered docs tests');
const SLOW = 600_000;

const document = loadOpenApi();
const RENDERERS = [REDOC, SCALAR, ELEMENTS];
const table = readTable('Renderers');

/** A description that hides fields: the current bundle with release 1.0.0's message-send body. */
function hidingFixture(): JsonObject {
  const baseline = JSON.parse(readFileSync(path.join(repoRoot, 'generated/baseline/openapi.json'), 'utf8'));
  const fixture = structuredClone(document);
  fixture.components.schemas.SendMessageRequest = baseline.components.schemas.SendMessageRequest;
  return fixture;
}

describe.skipIf(SKIP)('rendered docs in headless Chromium', () => {
  let browser: Browser;
  const sites: StaticSite[] = [];
  const scratch = mkdtempSync(path.join(tmpdir(), 'numbers-api-rendered-'));

  /** A site serving the reference built for `doc` and the Scalar and Elements pages of `doc`. */
  async function siteFor(doc: JsonObject, reference: string): Promise<StaticSite> {
    const site = await serveFiles({ ...rendererPages(JSON.stringify(doc)), '/reference.html': reference });
    sites.push(site);
    return site;
  }

  /** A page of `site` whose requests to any other host are refused and recorded. */
  async function open(site: StaticSite, renderer: Renderer): Promise<{ page: Page; outside: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const outside: string[] = [];
    // Uncaught errors are the renderer's own (Scalar 1.46 overflows its stack on some schemas and
    // goes on); what it shows is what this test reads.
    page.on('pageerror', () => {});
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${site.origin}/`) || /^(data|blob|about):/.test(url)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    await page.goto(`${site.origin}${renderer.page}`);
    await renderer.ready(page);
    return { page, outside };
  }

  let current: StaticSite;
  let fixture: StaticSite;
  const fixtureDoc = hidingFixture();

  beforeAll(async () => {
    browser = await launchChromium();
    const site = await builtDocsSite();
    current = await siteFor(document, path.join(site.dir, 'reference.html'));
    const fixtureReference = path.join(scratch, 'reference.html');
    await buildReferencePage({ openapi: fixtureDoc, dereferenced: loadDereferencedOpenApi(), output: fixtureReference, tmp: scratch });
    fixture = await siteFor(fixtureDoc, fixtureReference);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    for (const site of sites) await site.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the table lists each renderer once, at its installed version', () => {
    expect(table.rows.map((r) => r.tool)).toEqual(RENDERERS.map((r) => r.name));
    expect(table.rows.map((r) => r.version)).toEqual(RENDERERS.map((r) => r.version()));
    expect(table.headers).toEqual(['Tool', 'Version', 'Request bodies', 'Response bodies']);
  });

  describe.each(RENDERERS.map((r) => [r.name, r] as const))('%s', (_name, renderer) => {
    it('shows every field of every body of every operation, as the compatibility table says', async () => {
      const { page, outside } = await open(current, renderer);
      const lost: { request: string[]; response: string[] } = { request: [], response: [] };
      for (const op of operationsOf(document)) {
        const shown = await renderer.fields(page, op);
        for (const line of missingFields(expectedFields(document, op), shown)) {
          (line.startsWith('request:') ? lost.request : lost.response).push(`${op.operationId} ${line}`);
        }
      }
      await page.close();
      expect(outside).toEqual([]);
      const row = table.rows.find((r) => r.tool === renderer.name)!;
      expect(matches(row.cells['Request bodies']!, lost.request), `table: ${row.cells['Request bodies']!.text}\nlost: ${lost.request.join('; ')}`).toBe(true);
      expect(matches(row.cells['Response bodies']!, lost.response), `table: ${row.cells['Response bodies']!.text}\nlost: ${lost.response.join('; ')}`).toBe(true);
    }, SLOW);

    it('fails on a body whose fields stand beside its union where it hides them (release 1.0.0 message send)', async () => {
      const { page } = await open(fixture, renderer);
      const op = operationsOf(fixtureDoc).find((o) => o.operationId === 'sendMessage')!;
      const missing = missingFields(expectedFields(fixtureDoc, op), await renderer.fields(page, op));
      await page.close();
      // Redoc and Scalar draw only the branches, so the fields beside the union (`channel`,
      // `body`, ...) are on no tab; Elements 9.0 draws them inside each branch and its picker
      // of the branches, so it loses nothing (a driver that missed its picker would).
      if (renderer.hidesFieldsBesideUnion) expect(missing.length, 'the fixture hides nothing from this renderer').toBeGreaterThan(0);
      else expect(missing).toEqual([]);
      expect(missing.filter((line) => !line.startsWith('request: '))).toEqual([]);
    }, SLOW);
  });
});
