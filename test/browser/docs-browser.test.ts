// The built docs site in a real headless Chromium (Debian's package, driven by playwright-core):
// every page loads with no console error and no request to another host, every operation of the
// bundled description appears in the reference, the events page shows every event type, and the
// site's internal links resolve, opened from disk (file://) and from a static server on loopback;
// every page at 1280 and 390 px wide scrolls no sideways, its key controls side by side and none
// covered, its code inside its box. Screenshots go to test-results/docs/ and test-results/layout/
// for a person to look at.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_SAMPLE_LANGUAGES } from '../../docs/build/code-samples.mjs';
import { referenceRoute, referenceTagRoute } from '../../docs/build/contract.mjs';
import { SITE_PAGES } from '../../docs/build/layout.mjs';
import { referenceRoutes } from '../../docs/build/link-check.mjs';
import { listOperations, loadAsyncApi, loadOpenApi, repoRoot, type JsonObject } from '../helpers/contract.js';
import { builtDocsSite, type BuiltSite } from '../helpers/docs-site.js';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';

const SKIP = skipBrowser('docs browser tests');
const SCREENSHOTS = path.join(repoRoot, 'test-results/docs');
const LAYOUT_SHOTS = path.join(repoRoot, 'test-results/layout');
const REDOC_PAGES = new Set(['reference.html', 'asyncapi.html']);
/**
 * The pages opened one by one: every page but the workflows' own, of which one stands for all (one
 * generator draws them, docs/build/workflows-page.mjs; the build's link check reads every one, and
 * test/browser/workflows-page.test.ts opens them and runs one).
 */
const BROWSED_PAGES = SITE_PAGES.filter((p) => !('workflow' in p) || p.workflow === SITE_PAGES.find((q) => 'workflow' in q)?.workflow);
/** What Redoc shows instead of a page it failed to render. */
const REDOC_FAILED = 'Something went wrong rendering';
/** Timeout of the tests that visit many routes (a loaded CI machine renders slowly). */
const SLOW = 240_000;

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();
/** The reference route of an operation. */
const routeOf = (id: string) => {
  const { operation } = listOperations(openapi).find((o) => o.operation.operationId === id)!;
  return referenceRoute({ tag: operation.tags[0], operationId: operation.operationId });
};

/** What went wrong on a page: console errors, uncaught exceptions, requests to other hosts. */
interface Trouble {
  errors: string[];
  outside: string[];
}

describe.skipIf(SKIP)('docs site in headless Chromium', () => {
  let site: BuiltSite;
  let browser: Browser;
  let context: BrowserContext;
  let server: Server;
  let origin = '';
  const trouble = new Map<Page, Trouble>();

  /** A page whose every request is checked: only file:, data:, blob: and our loopback server pass. */
  async function newPage(): Promise<Page> {
    const page = await context.newPage();
    const t: Trouble = { errors: [], outside: [] };
    trouble.set(page, t);
    page.on('console', (m) => {
      if (m.type() === 'error') t.errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => t.errors.push(`uncaught: ${e.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (/^(file|data|blob|about):/.test(url) || (origin && url.startsWith(`${origin}/`))) return route.continue();
      t.outside.push(url);
      return route.abort('blockedbyclient');
    });
    return page;
  }

  /** Closes `page` after checking it reached no other host and logged no error. */
  async function closeClean(page: Page): Promise<void> {
    const t = trouble.get(page)!;
    await page.close();
    expect([...t.outside, ...t.errors]).toEqual([]);
  }

  /** Wait until Redoc has hydrated its prerendered markup (its search box stops saying Loading). */
  async function redocReady(page: Page): Promise<void> {
    await page.waitForFunction(() => {
      const search = document.querySelector('[data-testid="search-trigger"]');
      return !!search && !search.textContent?.includes('Loading');
    });
  }

  /**
   * Go to a route of the (loaded) reference and wait for a visible heading containing `text`.
   * False when it does not appear, or when Redoc shows its render-failure message instead. One
   * polling function in the page (not several locator round trips): it runs for every operation.
   */
  async function showsOperation(page: Page, route: string, text: string): Promise<boolean> {
    const hash = route.includes('#') ? route.slice(route.indexOf('#')) : '#/';
    await page.evaluate((h) => (location.hash = h), hash);
    const outcome = await page
      .waitForFunction(
        ([wanted, failed]) => {
          // Only the rendered markup: the inlined script itself contains the message.
          if (document.getElementById('redoc')?.textContent?.includes(failed)) return 'failed';
          const heading = Array.from(document.querySelectorAll('h1, h2')).find((h) => h.textContent?.includes(wanted));
          return heading && heading.getClientRects().length > 0 ? 'shown' : false;
        },
        [text, REDOC_FAILED] as const,
        { timeout: 15_000 },
      )
      .then(
        (handle) => handle.jsonValue(),
        () => 'timeout',
      );
    return outcome === 'shown';
  }

  async function open(page: Page, file: string, base = pathToFileURL(site.dir).href + '/'): Promise<void> {
    await page.goto(new URL(file, base).href, { waitUntil: 'load' });
    if (REDOC_PAGES.has(file.split('#')[0])) await redocReady(page);
  }

  beforeAll(async () => {
    site = await builtDocsSite();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('has a navigation entry for every page it built', () => {
    const built = readdirSync(site.dir).filter((f) => f.endsWith('.html')).sort();
    expect(built).toEqual(SITE_PAGES.map((p) => p.file).sort());
  });

  it.each(BROWSED_PAGES.map((p) => p.file))('%s loads from disk with no console error and no outside request', async (file) => {
    const page = await newPage();
    await open(page, file);
    await page.waitForTimeout(REDOC_PAGES.has(file) ? 500 : 50);
    const t = trouble.get(page)!;
    expect(t.outside, 'requests to other hosts').toEqual([]);
    expect(t.errors, 'console errors').toEqual([]);
    // The shared navigation bar, with this page marked.
    await expect(page.locator(`nav.site-nav a[aria-current="page"][href="${file}"]`).count()).resolves.toBe(1);
    await page.close();
  });

  // Every page at a laptop's width and a phone's: no sideways scroll, the bar's controls (and on
  // the reference the Try it button, Redoc's menu button and sidebar) side by side, none covering
  // another, code that wraps inside its box; one search box and Redoc's menu as the reference's
  // one navigation. A screenshot of each page at each width goes to test-results/layout/.
  describe.each([1280, 390])('at %i px wide', (width) => {
    let layoutContext: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      layoutContext = await browser.newContext({ viewport: { width, height: 860 } });
      page = await layoutContext.newPage();
      mkdirSync(path.join(LAYOUT_SHOTS, String(width)), { recursive: true });
    });
    afterAll(async () => {
      await layoutContext?.close();
    });

    /** The page's key controls that are on screen, each with its box and whether something else covers its middle. */
    const keyControls = () =>
      page.evaluate(() => {
        const selectors: Record<string, string> = {
          'site name': '.site-nav .site-name',
          search: '.site-nav .site-search input',
          'pages menu': '.site-nav .site-menu > summary',
          'try it': '.try-it-toggle',
          'try it close': '.try-it-drawer:not([hidden]) .try-it-close',
          "redoc's menu button": '[data-testid="floating-button"]',
          "redoc's menu": '[data-component-name="Menu/Menu"]',
          "redoc's search": '[data-testid="search-trigger"]',
        };
        const quick = document.querySelectorAll('.site-nav .site-quick a').length;
        for (let i = 1; i <= quick; i += 1) selectors[`quick link ${i}`] = `.site-nav .site-quick a:nth-child(${i})`;
        const found = [];
        for (const [name, selector] of Object.entries(selectors)) {
          const element = document.querySelector(selector);
          if (!element) continue;
          const box = element.getBoundingClientRect();
          const style = getComputedStyle(element);
          if (box.width < 1 || box.height < 1 || style.visibility === 'hidden' || box.bottom <= 0 || box.top >= innerHeight || box.right <= 0 || box.left >= innerWidth) continue;
          // The visible part of the box: a tall sidebar runs below the screen.
          const visible = { left: Math.max(0, box.left), top: Math.max(0, box.top), right: Math.min(innerWidth, box.right), bottom: Math.min(innerHeight, box.bottom) };
          const middle = document.elementFromPoint((visible.left + visible.right) / 2, (visible.top + visible.bottom) / 2);
          const covered = !!middle && !element.contains(middle) ? `${middle.tagName.toLowerCase()}.${String(middle.className).slice(0, 40)}` : null;
          found.push({ name, left: box.left, top: box.top, right: box.right, bottom: box.bottom, covered });
        }
        return found;
      });

    /** Overlapping pairs, controls off the screen's sides, controls covered by something else. */
    function layoutProblems(controls: Awaited<ReturnType<typeof keyControls>>): string[] {
      const problems: string[] = [];
      for (const [i, a] of controls.entries()) {
        if (a.left < -0.5 || a.right > width + 0.5) problems.push(`${a.name} runs off the screen (${Math.round(a.left)}..${Math.round(a.right)})`);
        if (a.covered) problems.push(`${a.name} is covered by ${a.covered}`);
        for (const b of controls.slice(i + 1)) {
          const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
          if (overlap) problems.push(`${a.name} overlaps ${b.name}`);
        }
      }
      return problems;
    }

    /** Code boxes whose text runs past their right edge (cut, or hidden behind a scrollbar the reader may not see). */
    const cutCode = () =>
      page.evaluate(() =>
        Array.from(document.querySelectorAll('pre'))
          .filter((pre) => pre.getClientRects().length > 0 && pre.scrollWidth > pre.clientWidth + 1)
          .map((pre) => `${pre.scrollWidth} > ${pre.clientWidth}: ${(pre.textContent ?? '').slice(0, 60)}`),
      );

    it.each(BROWSED_PAGES.map((p) => p.file))('%s: no sideways scroll, nothing covered, code inside its box', async (file) => {
      // The reference on an operation whose right pane holds code samples.
      const target = file === 'reference.html' ? routeOf('sendMessage') : file;
      await page.goto('about:blank');
      await page.goto(new URL(target, pathToFileURL(site.dir).href + '/').href, { waitUntil: 'load' });
      if (REDOC_PAGES.has(file)) await redocReady(page);
      if (file === 'reference.html') await page.locator('.try-it-toggle').waitFor();
      const scroll = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, viewport: innerWidth }));
      await page.screenshot({ path: path.join(LAYOUT_SHOTS, String(width), file.replace(/\.html$/, '.png')) });
      expect(scroll.width, 'document scrollWidth').toBeLessThanOrEqual(scroll.viewport);
      const controls = await keyControls();
      expect(controls.map((c) => c.name)).toEqual(expect.arrayContaining(['site name', 'search', 'pages menu']));
      expect(layoutProblems(controls)).toEqual([]);
      expect(await cutCode()).toEqual([]);
      if (REDOC_PAGES.has(file)) {
        // One search (the site's) and one navigation (Redoc's menu; the site's pages behind the Pages menu).
        expect(controls.map((c) => c.name).filter((n) => /search/.test(n))).toEqual(['search']);
        expect(controls.filter((c) => c.name.startsWith('quick link'))).toEqual([]);
        expect(await page.locator('.site-menu-panel a').first().isVisible()).toBe(false);
      }
    });

    it('opens the Pages menu and the Try it drawer inside the screen, covering none of the controls left showing', async () => {
      await page.goto(new URL('errors.html', pathToFileURL(site.dir).href + '/').href);
      await page.locator('.site-menu > summary').click();
      const panel = page.locator('.site-menu-panel');
      await expect(panel.isVisible()).resolves.toBe(true);
      const box = (await panel.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
      await page.screenshot({ path: path.join(LAYOUT_SHOTS, String(width), 'pages-menu-open.png') });
      await page.keyboard.press('Escape');
      await expect(panel.isVisible()).resolves.toBe(false);

      await page.goto(new URL(routeOf('listMessages'), pathToFileURL(site.dir).href + '/').href);
      await redocReady(page);
      await page.locator('.try-it-toggle').click();
      await page.locator('.try-it-drawer section.try-it').waitFor();
      const controls = await keyControls();
      expect(controls.map((c) => c.name)).toContain('try it close');
      // The drawer covers the page under it, not the bar nor its own close button.
      expect(layoutProblems(controls.filter((c) => !c.name.startsWith('redoc') && c.name !== 'try it'))).toEqual([]);
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
      expect(await cutCode()).toEqual([]);
      await page.screenshot({ path: path.join(LAYOUT_SHOTS, String(width), 'reference-try-it-open.png') });
      await page.locator('.try-it-drawer .try-it-close').click();
    });
  });

  describe('the API reference', () => {
    // One page for these checks: the reference is a 2.5 MB single-page app, loaded once.
    let page: Page;
    /** Routes already seen rendering their operation. */
    const shown = new Set<string>();
    beforeAll(async () => {
      page = await newPage();
      await open(page, 'reference.html');
    });
    afterAll(async () => {
      await closeClean(page);
    });

    it('groups its sidebar by the tag groups of the description', async () => {
      const menu = await page.locator('[data-component-name="Menu/Menu"]').first().innerText();
      for (const group of openapi['x-tagGroups'] as { name: string }[]) expect(menu).toContain(group.name);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'reference.png') });
    });

    it('routes every link of its sidebar to a route the bundle defines', async () => {
      const hrefs = await page.$$eval('[data-component-name="Menu/Menu"] a[href]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(hrefs.length).toBeGreaterThan(10);
      const routes = referenceRoutes(openapi);
      for (const href of hrefs) expect(routes.has(href.replace(/^#/, '')), href).toBe(true);
    });

    it('shows every operation of the bundled description, at its own route', async () => {
      const operations = [...listOperations(openapi), ...listOperations(openapi, 'webhooks')];
      expect(operations.length).toBeGreaterThan(30);
      const missing: string[] = [];
      for (const { operation } of operations) {
        const route = referenceRoute({ tag: operation.tags[0], operationId: operation.operationId });
        if (await showsOperation(page, route, operation.summary)) shown.add(route);
        else missing.push(`${operation.operationId} (${route})`);
      }
      expect(missing).toEqual([]);
    }, SLOW);

    it("shows the TypeScript code sample of this package's client, and every other language in Redoc's picker", async () => {
      const op = listOperations(openapi).find((o) => o.method === 'post' && o.path === '/api/v1/calls')!;
      expect(await showsOperation(page, referenceRoute({ tag: op.operation.tags[0], operationId: op.operation.operationId }), op.operation.summary)).toBe(true);
      await page.getByText("from 'numbers-api-contract/client'").first().waitFor({ state: 'visible' });
      await expect(page.getByText(`api.POST('${op.path}'`).first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'reference-create-call.png') });
      // Redoc offers each language, and shows its sample (not its "Language is not supported").
      await page.getByRole('button', { name: 'TypeScript' }).first().click();
      const items = page.getByRole('menuitem');
      await items.first().waitFor();
      expect((await items.allTextContents()).map((t) => t.trim())).toEqual(CODE_SAMPLE_LANGUAGES.map((l) => l.label));
      await items.filter({ hasText: 'Python' }).click();
      await page.getByText('import http.client').first().waitFor({ state: 'visible' });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'reference-create-call-python.png') });
      await page.getByRole('button', { name: 'Python' }).first().click();
      await page.getByRole('menuitem').filter({ hasText: 'TypeScript' }).click();
    });

    it('renders every reference route the other pages link to', async () => {
      const targets = new Set<string>();
      for (const { file } of SITE_PAGES.filter((p) => !REDOC_PAGES.has(p.file))) {
        const html = readFileSync(path.join(site.dir, file), 'utf8');
        for (const m of html.matchAll(/href="reference\.html(#[^"]*)?"/g)) targets.add(`reference.html${m[1] ?? ''}`);
      }
      expect(targets.size).toBeGreaterThan(10);
      const operations = [...listOperations(openapi), ...listOperations(openapi, 'webhooks')];
      const failures: string[] = [];
      for (const target of targets) {
        if (shown.has(target)) continue;
        const op = operations.find((o) => referenceRoute({ tag: o.operation.tags[0], operationId: o.operation.operationId }) === target);
        // A tag route shows the tag's name; an operation route its summary.
        const tag = (openapi.tags as { name: string }[]).find((t) => referenceTagRoute(t.name) === target);
        const expected = op?.operation.summary ?? tag?.name ?? (target === 'reference.html' ? openapi.info.title : undefined);
        if (!expected) failures.push(`${target}: names no operation or tag`);
        else if (!(await showsOperation(page, target, expected))) failures.push(`${target}: "${expected}" not shown`);
      }
      expect(failures).toEqual([]);
    }, SLOW);
  });

  it('shows every channel of the AsyncAPI document at its route in the AsyncAPI reference', async () => {
    const page = await newPage();
    await open(page, 'asyncapi.html');
    const hrefs = await page.$$eval('[data-component-name="Menu/Menu"] a[href]', (as) => as.map((a) => (a.getAttribute('href') ?? '').replace(/^#/, '')));
    const failures: string[] = [];
    for (const [key, channel] of Object.entries(asyncapi.channels as Record<string, JsonObject>)) {
      // Redoc routes a channel as /channels/<its key in lower case>.
      const route = `/channels/${key.toLowerCase()}`;
      if (!hrefs.includes(route)) failures.push(`${key}: no ${route} in the sidebar`);
      await page.evaluate((hash) => (location.hash = hash), `#${route}`);
      const shown = await page
        .locator('h1, h2')
        .filter({ hasText: channel.title as string })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 })
        .then(() => true, () => false);
      if (!shown || (await page.getByText('No page at this address').count()) > 0) failures.push(`${key}: "${channel.title}" not shown at ${route}`);
    }
    expect(failures).toEqual([]);
    await closeClean(page);
  }, SLOW);

  it('shows every event type, every channel with its guarantee, and the envelope on the events page', async () => {
    const page = await newPage();
    await open(page, 'events.html');
    const types = (asyncapi.components.schemas.EventType.anyOf as JsonObject[]).filter((v) => 'const' in v).map((v) => v.const as string);
    for (const type of types) {
      const section = page.locator(`[data-event-type="${type}"]`);
      await expect(section.locator('h3').innerText(), type).resolves.toBe(type);
      expect(await section.locator('details.example').count(), `${type} examples`).toBeGreaterThan(0);
    }
    for (const [key, channel] of Object.entries(asyncapi.channels as Record<string, JsonObject>)) {
      const card = page.locator(`[data-channel="${key}"]`);
      await expect(card.locator('.guarantee').innerText(), key).resolves.toContain(channel['x-delivery-guarantee']);
    }
    await expect(page.locator('#envelope').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'events.png') });
    // Open the first example of each type, so that the full-page screenshot shows them.
    for (const type of types) await page.locator(`[data-event-type="${type}"] details.example summary`).first().click();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'events-full.png'), fullPage: true });
    await closeClean(page);
  });

  it('resolves every internal link and anchor of the generated pages and guides', async () => {
    const page = await newPage();
    const links = new Set<string>();
    for (const { file } of BROWSED_PAGES.filter((p) => !REDOC_PAGES.has(p.file))) {
      await open(page, file);
      const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
      for (const href of hrefs) if (href.startsWith('file:')) links.add(href);
    }
    expect(links.size).toBeGreaterThan(50);
    const byTarget = new Map<string, Set<string>>();
    for (const link of links) {
      const [target, fragment = ''] = link.split('#');
      const file = path.basename(new URL(target).pathname);
      byTarget.set(file, (byTarget.get(file) ?? new Set()).add(fragment));
    }
    const failures: string[] = [];
    for (const [file, fragments] of byTarget) {
      if (!existsSync(path.join(site.dir, file))) {
        failures.push(`${file}: missing`);
        continue;
      }
      // Downloads (the descriptions) only need to exist; reference routes have their own test.
      if (!file.endsWith('.html') || REDOC_PAGES.has(file)) continue;
      await open(page, file);
      for (const fragment of [...fragments].filter(Boolean)) {
        if (!(await page.evaluate((id) => !!document.getElementById(decodeURIComponent(id)), fragment))) failures.push(`${file}#${fragment}: no such anchor`);
      }
    }
    expect(failures).toEqual([]);
    await closeClean(page);
  }, SLOW);

  it('renders the state diagrams of a guide, and screenshots it', async () => {
    const page = await newPage();
    await open(page, 'getting-a-key.html');
    const box = await page.locator('svg[data-machine="signUp"]').boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    expect(box?.height).toBeGreaterThan(300);
    await page.locator('figure.diagram').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'guide-getting-a-key.png') });
    await open(page, 'state-machines.html');
    const machines = Object.keys(openapi['x-state-machines']);
    await expect(page.locator('svg[data-machine]').count()).resolves.toBe(machines.length);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'guide-state-machines-full.png'), fullPage: true });
    await page.close();
  });

  it('works from a static server on loopback too (events, a guide, reference routes opened directly)', async () => {
    const root = site.dir;
    const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json', '.yaml': 'text/yaml' };
    server = createServer((req, res) => {
      const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = path.join(root, pathname === '/' ? 'index.html' : pathname);
      if (!file.startsWith(root) || !existsSync(file)) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await newPage();
    for (const file of ['index.html', 'events.html', 'getting-a-key.html']) await open(page, file, `${origin}/`);
    // Opened directly (a fresh load, not a hash change within the app), the first operation of
    // each tag group: Redoc renders a directly opened route through a different path, which is
    // where it once failed on a boolean subschema.
    const failures: string[] = [];
    for (const group of openapi['x-tagGroups'] as { name: string; tags: string[] }[]) {
      const op = listOperations(openapi).find((o) => o.operation.tags[0] === group.tags[0])!;
      const route = referenceRoute({ tag: op.operation.tags[0], operationId: op.operation.operationId });
      await page.goto('about:blank'); // so that the next goto is a fresh load, not a hash change
      await open(page, route, `${origin}/`);
      if (!(await showsOperation(page, route, op.operation.summary))) failures.push(`${group.name}: ${route}`);
    }
    expect(failures).toEqual([]);
    const t = trouble.get(page)!;
    expect(t.outside).toEqual([]);
    expect(t.errors).toEqual([]);
    await page.close();
  }, SLOW);
});
