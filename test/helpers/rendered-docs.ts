// What a reader sees of each body in three renderers (issue 18), read from the rendered page in
// headless Chromium: the reference `npm run docs` builds (Redoc, through Redocly build-docs),
// Scalar (@scalar/api-reference) and Stoplight Elements (@stoplight/elements), the last two
// served offline from their npm packages by a loopback static server.
//
// For an operation, a driver opens its page or section, then reads the property names shown in
// the request body and in each documented response, selecting every branch of every union (a tab,
// a dropdown option) in turn. Names are read from the renderer's own property-name elements, never
// from examples or code samples, which would show a field a schema hides.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { referenceRoute } from '../../docs/build/contract.mjs';
import { installedVersion } from '../../scripts/compat/generators.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import { repoRoot, type JsonObject } from './contract.js';

/** Field names per body: `request`, and one entry per documented response status. */
export type Fields = Map<string, Set<string>>;

export interface Operation {
  path: string;
  method: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Whether it has a JSON request body. */
  requestBody: boolean;
}

// ---------------------------------------------------------------------------------------------
// What the contract says each body holds.

/** A node with its local `$ref`s followed (the repository's one helper). */
const deref = (doc: JsonObject, node: JsonObject | undefined): JsonObject | undefined => resolveRef<JsonObject | undefined>(doc, node);

/**
 * The top-level property names of a body: its own (through `allOf`), those of every branch of
 * its unions (nested unions included), and for an array body those of its items.
 */
export function topLevelNames(doc: JsonObject, schema: JsonObject | undefined, depth = 0): Set<string> {
  const names = new Set<string>();
  const s = deref(doc, schema);
  if (!s || depth > 10) return names;
  if (s.type === 'array' && s.items) return topLevelNames(doc, s.items, depth + 1);
  for (const name of Object.keys(s.properties ?? {})) names.add(name);
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const part of s[key] ?? []) for (const n of topLevelNames(doc, part, depth + 1)) names.add(n);
  return names;
}

/** Every operation of the description, with its tag and summary. */
export function operationsOf(doc: JsonObject): Operation[] {
  const found: Operation[] = [];
  for (const [p, item] of Object.entries<JsonObject>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<JsonObject>(item)) {
      if (!op?.operationId) continue;
      const requestBody = Boolean(deref(doc, op.requestBody)?.content?.['application/json']);
      found.push({ path: p, method, operationId: op.operationId, tag: op.tags?.[0] ?? '', summary: op.summary ?? '', requestBody });
    }
  }
  return found;
}

/**
 * The titles (or component names) of the branches of a body's own union, as `branch: <title>`
 * (a union inside a branch is a level deeper than a renderer shows without a click).
 */
export function branchLabels(doc: JsonObject, schema: JsonObject | undefined, depth = 0): Set<string> {
  const labels = new Set<string>();
  const s = deref(doc, schema);
  if (!s || depth > 10) return labels;
  if (s.type === 'array' && s.items) return branchLabels(doc, s.items, depth + 1);
  for (const key of ['oneOf', 'anyOf']) {
    for (const branch of s[key] ?? []) {
      const b = deref(doc, branch);
      if (!b || b.type === 'null' || !topLevelNames(doc, b).size) continue;
      labels.add(`branch: ${b.title ?? (branch.$ref as string | undefined)?.split('/').pop()}`);
    }
  }
  for (const part of s.allOf ?? []) for (const l of branchLabels(doc, part, depth + 1)) labels.add(l);
  return labels;
}

/** The names each body of an operation must show: its JSON request body and each documented JSON response. */
export function expectedFields(doc: JsonObject, op: Operation): Fields {
  const operation = doc.paths[op.path][op.method];
  const fields: Fields = new Map();
  const body = deref(doc, operation.requestBody)?.content?.['application/json']?.schema;
  const shown = (schema: JsonObject) => new Set([...topLevelNames(doc, schema), ...branchLabels(doc, schema)]);
  if (body) fields.set('request', shown(body));
  for (const [status, response] of Object.entries<JsonObject>(operation.responses ?? {})) {
    const schema = deref(doc, response)?.content?.['application/json']?.schema;
    if (schema) fields.set(status, shown(schema));
  }
  for (const [key, names] of fields) if (names.size === 0) fields.delete(key);
  return fields;
}

/** Names expected but not shown, as `body: name` lines. */
export function missingFields(expected: Fields, shown: Fields): string[] {
  const missing: string[] = [];
  for (const [body, names] of expected) for (const name of names) if (!shown.get(body)?.has(name)) missing.push(`${body}: ${name}`);
  return missing;
}

// ---------------------------------------------------------------------------------------------
// A loopback static server for the renderers' own files (no CDN) and the description.

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** Serve `files` (URL path -> file on disk, or page text) on 127.0.0.1, on a free port. */
export async function serveFiles(files: Record<string, string | { text: string }>): Promise<StaticSite> {
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const entry = files[url];
    if (entry === undefined) {
      res.writeHead(404).end();
      return;
    }
    const body = typeof entry === 'string' ? readFileSync(entry) : entry.text;
    res.writeHead(200, { 'content-type': TYPES[path.extname(url)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// Scalar and Elements are their own install, kept out of the main one (scripts/tools-install.mjs renderers).
const renderersDir = path.join(repoRoot, 'scripts/renderers');
const nodeModule = (file: string) => path.join(renderersDir, 'node_modules', file);

/** The pages that render `/openapi.json` with Scalar and with Elements, from their npm packages. */
export function rendererPages(openapiJson: string): Record<string, string | { text: string }> {
  return {
    '/openapi.json': { text: openapiJson },
    '/scalar/standalone.js': nodeModule('@scalar/api-reference/dist/browser/standalone.js'),
    '/elements/web-components.min.js': nodeModule('@stoplight/elements/web-components.min.js'),
    '/elements/styles.min.css': nodeModule('@stoplight/elements/styles.min.css'),
    '/scalar.html': {
      text: `<!doctype html><html><head><meta charset="utf-8"><title>Scalar</title></head><body><div id="app"></div>
<script src="/scalar/standalone.js"></script>
<script>Scalar.createApiReference('#app', { url: '/openapi.json', withDefaultFonts: false, hideClientButton: true, telemetry: false, agent: { disabled: true } })</script>
</body></html>`,
    },
    '/elements.html': {
      text: `<!doctype html><html><head><meta charset="utf-8"><title>Elements</title><link rel="stylesheet" href="/elements/styles.min.css"></head><body>
<elements-api apiDescriptionUrl="/openapi.json" router="hash" layout="sidebar" hideTryIt="true"></elements-api>
<script src="/elements/web-components.min.js"></script>
</body></html>`,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Drivers: one per renderer.

export interface Renderer {
  name: string;
  /** The npm package whose version the compatibility table states. */
  packageName: string;
  version(): string;
  /** The page to load once (relative to the site's origin). */
  page: string;
  /** Wait until the renderer has drawn its navigation. */
  ready(page: Page): Promise<void>;
  /** Open one operation and read the names each of its bodies shows, every branch selected in turn. */
  fields(page: Page, op: Operation): Promise<Fields>;
  /**
   * Whether a field standing beside a union is lost from every branch (release 1.0.0's send
   * body): Redoc and Scalar draw only the branches; Elements draws the fields inside each branch.
   */
  hidesFieldsBesideUnion: boolean;
}

const add = (fields: Fields, body: string, names: Iterable<string>) => {
  const set = fields.get(body) ?? new Set<string>();
  for (const n of names) set.add(n.trim());
  fields.set(body, set);
};

/** How a renderer's union selector is worked: show its options, pick one of them. */
interface UnionPicker {
  /** Shows the options of one selector (tabs, a dropdown, a listbox) and returns them. */
  open(selector: Locator): Promise<Locator>;
  /** Picks option `j` of the options `open` showed. */
  pick(options: Locator, j: number): Promise<void>;
}

const debug = (...what: unknown[]) => {
  if (process.env.DEBUG_RENDERED) console.log(...what);
};

/**
 * Select every option of every union selector in `selectors` in turn, reading after each; a
 * selector that appears once another is set (a union inside a branch) is visited in a later round.
 */
async function eachBranch(page: Page, selectors: Locator, picker: UnionPicker, read: (labels?: string[], selector?: Locator) => Promise<void>): Promise<void> {
  await read();
  const visited = new Set<string>();
  for (let round = 0; round < 3; round += 1) {
    let progressed = false;
    const count = await selectors.count();
    for (let i = 0; i < count; i += 1) {
      const selector = selectors.nth(i);
      let n: number;
      try {
        const options = await picker.open(selector);
        n = await options.count();
        await read(await options.allInnerTexts(), selector);
        await page.keyboard.press('Escape');
      } catch (error) {
        debug('open failed', i, String(error).split('\n')[0]);
        continue;
      }
      for (let j = 0; j < n; j += 1) {
        const key = `${i}/${j}`;
        if (visited.has(key)) continue;
        visited.add(key);
        progressed = true;
        try {
          // The options close after a pick: show them again.
          await picker.pick(await picker.open(selector), j);
        } catch (error) {
          // A selector that moved or changed its options as a branch was picked: the next round reads it again.
          debug('pick failed', i, j, String(error).split('\n')[0]);
          continue;
        }
        await page.waitForTimeout(50);
        await read();
      }
    }
    if (!progressed) break;
  }
}

/** Redoc's "One of:" switcher: buttons, or for many branches a dropdown. */
const REDOC_SWITCHER: UnionPicker = {
  async open(switcher) {
    const dropdown = switcher.locator('[data-component-name="Dropdown/Dropdown"]');
    if ((await dropdown.count()) === 0) return switcher.locator('button');
    const items = switcher.page().locator('[data-component-name="Dropdown/DropdownMenuItem"]:visible');
    if ((await items.count()) === 0) await dropdown.first().click();
    await items.first().waitFor({ timeout: 5_000 });
    return items;
  },
  pick: (options, j) => options.nth(j).click({ timeout: 5_000 }),
};

export const REDOC: Renderer = {
  name: 'Redoc (Redocly build-docs)',
  hidesFieldsBesideUnion: true,
  packageName: '@redocly/cli',
  version: () => installedVersion('@redocly/cli'),
  page: '/reference.html',
  async ready(page) {
    await page.locator('[data-component-name="Menu/Menu"]').first().waitFor({ timeout: 60_000 });
  },
  async fields(page, op) {
    const fields: Fields = new Map();
    const route = referenceRoute({ tag: op.tag, operationId: op.operationId }).replace(/^reference\.html/, '');
    await page.evaluate((hash) => (location.hash = hash), route);
    const idPrefix = route.replace(/^#\//, '');
    // A route shows its tag's page; the operation is the section named after the route, and its
    // middle panels hold the schemas (the right ones hold samples).
    const section = page.locator(`[data-section-id="/${idPrefix}"]`);
    await section.locator('h2', { hasText: op.summary }).first().waitFor({ timeout: 30_000 });
    const middle = section.locator('[data-testid="middle-panel"]');
    // Each shown property is a `.schema-property-item` whose id says where it is:
    // `<route>/t=request&path=...` or `<route>/t=response&c=<status>&path=...`.
    let body = 'request';
    const read = async (labels?: string[]) => {
      if (labels) add(fields, body, labels.map((l) => `branch: ${l.trim()}`));
      // Drawn ones only (laid out), outside any other field (the top level of the body).
      const items = await page.$$eval(`[id^="${idPrefix}/t="].schema-property-item`, (els) =>
        els
          .filter((e) => e.getClientRects().length > 0 && !e.parentElement?.closest('.schema-property-item'))
          .map((e) => ({ id: e.id, name: e.querySelector('.schema-name')?.textContent ?? '' })),
      );
      for (const { id, name } of items) add(fields, /t=response&c=([^&/]+)/.exec(id)?.[1] ?? 'request', [name]);
    };
    // Unions of the body: a "One of:" switcher outside any field, as buttons or, for many
    // branches, a dropdown. A field's own union (its types) shows no other top-level field, so it
    // is left as it is.
    // The request and the responses are separate middle panels; the responses' one holds the
    // status tabs.
    const statusTabs = '[role="tablist"][aria-label="Response status"]';
    const requestPanel = middle.filter({ hasNot: page.locator(statusTabs) });
    const responsePanel = middle.filter({ has: page.locator(statusTabs) });
    const branches = (panel: Locator) =>
      eachBranch(page, panel.locator('[data-section-id="switcher"]:not(.schema-property-item *)'), REDOC_SWITCHER, read);
    await branches(requestPanel);
    // Responses: one status shown at a time; select each.
    const statuses = responsePanel.locator(`${statusTabs} [role="tab"]`);
    const count = await statuses.count();
    for (let i = 0; i < count; i += 1) {
      await statuses.nth(i).click();
      body = (await statuses.nth(i).innerText()).trim();
      await page.waitForTimeout(50);
      await branches(responsePanel);
    }
    return fields;
  },
};

/**
 * A Scalar listbox or an Elements menu: a click opens a menu, Enter a listbox; an option is
 * clicked, or reached with Home and ArrowDown and picked with Enter.
 */
const LISTBOX: UnionPicker = {
  async open(button) {
    const page = button.page();
    const id = await button.getAttribute('id');
    const list = page.locator(`[role="listbox"][aria-labelledby~="${id}"], [role="menu"][aria-labelledby~="${id}"]`).first();
    await button.click();
    if (!(await list.isVisible())) {
      await button.focus();
      await page.keyboard.press('Enter');
    }
    await list.waitFor({ timeout: 3_000 });
    return list.locator('[role="option"], [role^="menuitem"]');
  },
  async pick(options, j) {
    await options.nth(j).click({ timeout: 2_000 }).catch(async () => {
      const keyboard = options.page().keyboard;
      await keyboard.press('Home');
      for (let k = 0; k < j; k += 1) await keyboard.press('ArrowDown');
      await keyboard.press('Enter');
    });
  },
};

/** Scalar's picker of a body's own union (a field's union shows no other top-level field). */
const TOP_COMPOSITION = 'button.composition-selector:not(li.property--level-1 *, li.property--level-2 *, li.property--level-3 *)';

/** Scalar's anchor of a tag (`Sign-up` -> `sign-up`). */
const scalarSlug = (tag: string) => tag.toLowerCase().replace(/\s+/g, '-');

export const SCALAR: Renderer = {
  name: '@scalar/api-reference',
  hidesFieldsBesideUnion: true,
  packageName: '@scalar/api-reference',
  version: () => installedVersion('@scalar/api-reference', renderersDir),
  page: '/scalar.html',
  async ready(page) {
    await page.locator('[data-sidebar-id]').first().waitFor({ timeout: 60_000 });
  },
  async fields(page, op) {
    const fields: Fields = new Map();
    const anchor = `tag/${scalarSlug(op.tag)}/${op.method.toUpperCase()}${op.path}`;
    await page.evaluate((hash) => (location.hash = hash), `#${anchor}`);
    // One page for every operation; each is a <section> drawn as it scrolls into view.
    const section = page.locator(`section[id="api-1/${anchor}"]`);
    await section.waitFor({ timeout: 30_000 });
    await section.scrollIntoViewIfNeeded();
    // Drawn once in view: every operation lists its responses.
    await section.locator('ul[aria-label="Responses"]').waitFor({ timeout: 30_000 });
    // A name without the "Copy link to" button inside it. (No named functions inside evaluate
    // callbacks: the test runner's transform would wrap them in a helper the page lacks.)
    const names = (scope: Locator) =>
      scope.locator('.property-name').evaluateAll((els) =>
        els.map((e) => {
          const copy = e.cloneNode(true) as Element;
          copy.querySelectorAll('button').forEach((b) => b.remove());
          return (copy.textContent ?? '').trim();
        }),
      );
    const request = section.locator('[aria-label="Request Body"]');
    if (op.requestBody) {
      await request.first().waitFor({ timeout: 10_000 });
      await eachBranch(page, request.locator(TOP_COMPOSITION), LISTBOX, async (labels) => add(fields, 'request', labels ? labels.map((l) => `branch: ${l.trim()}`) : await names(request)));
    }
    // Responses: a list of statuses, each opened by its button.
    const responses = section.locator('ul[aria-label="Responses"] > li');
    const count = await responses.count();
    for (let i = 0; i < count; i += 1) {
      const item = responses.nth(i);
      const status = (await item.locator('.parameter-item-name').first().innerText()).trim();
      const trigger = item.locator('button.parameter-item-trigger').first();
      if ((await trigger.getAttribute('aria-expanded')) !== 'true') await trigger.click();
      await page.waitForTimeout(50);
      await eachBranch(page, item.locator(TOP_COMPOSITION), LISTBOX, async (labels) => add(fields, status, labels ? labels.map((l) => `branch: ${l.trim()}`) : await names(item)));
    }
    return fields;
  },
};

export const ELEMENTS: Renderer = {
  name: '@stoplight/elements',
  hidesFieldsBesideUnion: false,
  packageName: '@stoplight/elements',
  version: () => installedVersion('@stoplight/elements', renderersDir),
  page: '/elements.html',
  async ready(page) {
    await page.locator('[id^="sl-toc-/"]').first().waitFor({ state: 'attached', timeout: 60_000 });
  },
  async fields(page, op) {
    const fields: Fields = new Map();
    await page.evaluate((hash) => (location.hash = hash), `#/operations/${op.operationId}`);
    await page.locator('h1', { hasText: op.summary }).first().waitFor({ timeout: 30_000 });
    const left = page.locator('[data-testid="two-column-left"]');
    // Property names (`data-test="property-name-<name>"`) under the request body's heading, or
    // under the responses' heading (one status shown at a time).
    const read = (body: () => Promise<string>) => async (labels?: string[], selector?: Locator) => {
      if (labels && selector) {
        // A picker above the responses' heading is the request body's (asked of the picker
        // itself: the focused element may be elsewhere once its menu is read).
        const inResponses = await selector.evaluate((picker, operationId) => {
          const heading = picker.ownerDocument.querySelector(`[id="/operations/${operationId}#Responses"]`);
          return Boolean(heading && heading.compareDocumentPosition(picker) & Node.DOCUMENT_POSITION_FOLLOWING);
        }, op.operationId);
        add(fields, inResponses ? await body() : 'request', labels.map((l) => `branch: ${l.trim()}`));
        return;
      }
      const { request, response } = await left.evaluate((root, operationId) => {
        const requestHeading = root.querySelector(`[id="/operations/${operationId}#request-body"]`);
        const responsesHeading = root.querySelector(`[id="/operations/${operationId}#Responses"]`);
        const request: string[] = [];
        const response: string[] = [];
        for (const el of Array.from(root.querySelectorAll('[data-test^="property-name-"]'))) {
          const name = (el.getAttribute('data-test') ?? '').replace('property-name-', '');
          if (responsesHeading && responsesHeading.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) response.push(name);
          else if (requestHeading && requestHeading.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) request.push(name);
        }
        return { request, response };
      }, op.operationId);
      add(fields, 'request', request);
      if (response.length) add(fields, await body(), response);
    };
    const tabs = left.locator('[role="tab"][data-key]');
    const statuses = await tabs.count();
    const selected = async () => (await left.locator('[role="tab"][data-key][aria-selected="true"]').first().getAttribute('data-key')) ?? '?';
    // A body's own union is a menu (a <div>); a field's union (a <button>) shows no other
    // top-level field, so it is left as it is.
    const pickers = left.locator('div[aria-label="Pick a type"]');
    await eachBranch(page, pickers, LISTBOX, read(selected));
    for (let i = 0; i < statuses; i += 1) {
      await tabs.nth(i).click();
      await page.waitForTimeout(50);
      await eachBranch(page, pickers, LISTBOX, read(selected));
    }
    return fields;
  },
};
