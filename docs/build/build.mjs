#!/usr/bin/env node
// `npm run docs`: build the static documentation site from the generated contract.
//
//   node docs/build/build.mjs [--out <dir>]      (default docs/site)
//
// One flat folder of HTML pages that loads nothing from outside hosts, so it opens from disk
// (file://) and from any static server: the API reference and the AsyncAPI reference (Redoc,
// inlined), the events page, the guides, and the page of unshown (x-inferred) details.
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { withCodeSamples, CODE_SAMPLE_LANGUAGES } from './code-samples.mjs';
import { generatedDir, listOperations, loadContract, operationLinker, referenceRoute, referenceTagRoute, repoRoot } from './contract.mjs';
import { eventsPage } from './events-page.mjs';
import { renderGuide } from './guides.mjs';
import { escapeHtml, markdownInline } from './html.mjs';
import { inferredPage } from './inferred-page.mjs';
import { writeLlmsFiles } from './llms-txt.mjs';
import { pageHtml, SCRIPT, SITE_PAGES } from './layout.mjs';
import { checkSite } from './link-check.mjs';
import { buildRedocPage } from './redoc-page.mjs';
import { buildBrowserBundles } from './browser-bundles.mjs';
import { contractDocuments, searchIndexScript, sectionDocuments } from './search-index.mjs';
import { tryItCatalog } from './try-it-catalog.mjs';
import { workflowPage, workflowsIndexPage } from './workflows-page.mjs';

const buildDir = path.join(repoRoot, 'docs/build');
const guidesDir = path.join(repoRoot, 'docs/guides');
export const DEFAULT_OUT = path.join(repoRoot, 'docs/site');

function parseArgs(argv) {
  const options = { out: DEFAULT_OUT };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--out') {
      const value = argv[++i];
      if (!value || value.startsWith('--')) throw new UsageError('--out needs a directory');
      options.out = path.resolve(value);
    } else if (arg.startsWith('--out=')) {
      options.out = path.resolve(arg.slice('--out='.length));
    } else if (arg === '--help' || arg === '-h') {
      options.help = true;
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return options;
}

class UsageError extends Error {}

function indexPage({ openapi, asyncapi, counts, titles }) {
  const signupCode = (openapi['x-test-values'] ?? []).find((t) => t.name === 'signupCode')?.value ?? '';
  const routes = Object.fromEntries(listOperations(openapi).filter((op) => op.path).map((op) => [op.operationId, referenceRoute(op)]));
  const describe = {
    'reference.html': `Every operation of the OpenAPI ${escapeHtml(openapi.openapi)} description (${counts.operations} operations, grouped as in the interface specification, and the ${counts.webhooks} webhook delivery), with request and response examples, code samples in TypeScript (this package's client), curl, JavaScript, Python, Go and Java, and a console to try each one.`,
    'events.html': `The ${counts.channels} delivery channels of part 6 with their guarantees, the envelope, the ${counts.eventTypes} documented event types with examples, and the local fan-out target rules.`,
    'asyncapi.html': `The AsyncAPI ${escapeHtml(asyncapi.asyncapi)} document, rendered by Redoc.`,
    'unshown.html': `The ${counts.inferred} details the interface specification leaves unshown, and how this contract treats each (generated from every <code>x-inferred</code>).`,
  };
  const items = SITE_PAGES.filter((p) => p.file !== 'index.html' && !p.hidden)
    .map((p) => `<li><a href="${p.file}">${escapeHtml(p.title ?? titles.get(p.file) ?? p.nav)}</a>${describe[p.file] ? `: ${describe[p.file]}` : p.summary ? `: ${escapeHtml(p.summary)}` : ''}</li>`)
    .join('\n');
  const groups = (openapi['x-tagGroups'] ?? [])
    .map((g) => `<li>${escapeHtml(g.name)}: ${g.tags.map((t) => `<a href="${referenceTagRoute(t)}">${escapeHtml(t)}</a>`).join(', ')}</li>`)
    .join('');
  return pageHtml({
    file: 'index.html',
    title: 'Overview',
    body: `<h1>${escapeHtml(openapi.info.title)}</h1>
<p>${markdownInline(openapi.info.summary ?? '')}</p>
<p class="muted">Interface version ${escapeHtml(openapi.info['x-api-version'] ?? 'v1')} · contract package ${escapeHtml(openapi.info.version)} · built from <code>generated/</code> (the bundled descriptions), never by hand.</p>
<h2 id="pages">Pages</h2>
<ul>
${items}
</ul>
<h2 id="try-it">Try it, with nothing running but this page</h2>
<p>Every operation page of the <a href="reference.html">API reference</a> has a <strong>Try it</strong> button, and the guides have consoles where they walk through a flow (<a href="getting-a-key.html">Getting a key</a> signs you up). By default a request goes to the stateful mock of this package running <em>in this page</em>: its MSW handlers under a service worker served with the site, so nothing leaves your machine. What you create stays for the whole visit, across pages, in this tab only.</p>
<ol>
<li>On <a href="getting-a-key.html">Getting a key</a>, send the sign-up steps, the first with the <code>withCoupon</code> example (its credit pays for the message you send next; the mock's code is <code>${escapeHtml(signupCode)}</code>: click it under the form), then <em>Use this key</em>.</li>
<li>On <a href="${escapeHtml(routes.sendMessage)}">Send a message</a>, open <em>Try it</em> and send; on <a href="${escapeHtml(routes.listMessages)}">List recent messages</a> (the next entry of the reference's menu: the drawer follows you), see it listed.</li>
<li>On <a href="${escapeHtml(routes.waitForEvent)}">Wait for an event</a>, start the wait, then <em>Advance clock</em>: the in-page mock's clock stands still until you move it, and the delivery answers the wait with <code>message.status_changed</code>.</li>
</ol>
<p>Each answer shows its status, headers and body; under it, the request the form describes (the example selected, the ids filled in, what you typed) in TypeScript (this package's client), <code>curl</code>, JavaScript, Python, Go and Java, the key read from <code>NUMBERS_API_KEY</code>. <em>Reset mock</em> starts over. Switch the target to a local <code>npm start</code> (it allows any page's origin) or to a deployment's base URL with your key; the key stays in this tab's session only, never in a URL or in storage that outlives the tab. The in-page mock needs the site served over http(s) (any static server; a service worker cannot run from <code>file://</code>, where the consoles answer in the page without one).</p>
<h2 id="search">Search</h2>
<p>The box in the navigation bar (or <kbd>/</kbd>, or <kbd>Ctrl</kbd>+<kbd>K</kbd>) searches the whole site at once: guides, the reference, events, error codes and the mock's test values, from an index built with the site. It is the one search of every page, the reference's included; the <em>Pages</em> menu beside it lists every page.</p>
<h2 id="reference-groups">The reference by part</h2>
<ul>${groups}</ul>
<h2 id="downloads">Machine-readable descriptions</h2>
<ul>
<li><a href="openapi.yaml">openapi.yaml</a> and <a href="openapi.json">openapi.json</a>: the bundled OpenAPI description.</li>
<li><a href="asyncapi.yaml">asyncapi.yaml</a>: the bundled AsyncAPI description.</li>
<li><a href="llms.txt">llms.txt</a>: this site for assistants (llmstxt.org), with <a href="llms-full.txt">llms-full.txt</a>, every operation, event and error code as plain Markdown.</li>
</ul>`,
  });
}

/**
 * The API reference page: a copy of the bundle with generated x-codeSamples, rendered by Redoc.
 * The bundle holds no boolean subschema Redoc cannot render (test/generators.test.ts). Exported
 * so that test/browser/rendered-docs.test.ts renders a fixture description exactly as the site
 * renders the contract. The samples are the try-it catalog's (`catalog`, the one the page's script
 * carries, so that the page writes them again alike for another server). Resolves to the number of
 * operations given code samples.
 */
export async function buildReferencePage({ openapi, dereferenced, output, tmp, catalog = tryItCatalog(dereferenced) }) {
  const { document, count } = await withCodeSamples(openapi, catalog);
  plainServerDescriptions(document);
  const input = path.join(tmp, 'openapi.docs.json');
  await writeFile(input, JSON.stringify(document));
  await buildRedocPage({
    input,
    output,
    title: `${openapi.info.title}: API reference`,
    page: 'reference.html',
    kind: 'openapi',
    scripts: ['try-it.js'],
    redocOptions: { codeSamples: { languages: CODE_SAMPLE_LANGUAGES }, scrollYOffset: 40 },
  });
  return count;
}

/** Build the whole site into `out` (emptied first). Returns what it built, for logs and tests. */
export async function buildSite({ out = DEFAULT_OUT } = {}) {
  const started = Date.now();
  const contract = loadContract();
  const { openapi, dereferenced, asyncapi } = contract;
  const linkOperation = operationLinker(openapi);
  const catalog = tryItCatalog(dereferenced);

  await rm(out, { recursive: true, force: true });
  await mkdir(path.join(out, 'assets'), { recursive: true });
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'numbers-api-docs-'));
  try {
    // 1. The API reference (buildReferencePage).
    // 2. The AsyncAPI document, rendered by Redoc too (it reads AsyncAPI 3.0 offline).
    const [samples] = await Promise.all([
      buildReferencePage({ openapi, dereferenced, output: path.join(out, 'reference.html'), tmp, catalog }),
      buildRedocPage({
        input: path.join(generatedDir, 'asyncapi.json'),
        output: path.join(out, 'asyncapi.html'),
        title: `${asyncapi.info.title}: AsyncAPI reference`,
        page: 'asyncapi.html',
        kind: 'asyncapi',
        redocOptions: { scrollYOffset: 40 },
      }),
    ]);

    // 3. The events page, generated from the AsyncAPI document.
    const events = eventsPage(asyncapi);
    await writeFile(path.join(out, 'events.html'), pageHtml({ file: 'events.html', title: events.title, body: events.body, toc: tocOf(events.body, [2, 3]) }));

    // 4. The guides.
    const guideFiles = new Set((await readdir(guidesDir)).filter((f) => f.endsWith('.md')));
    const titles = new Map();
    const guidePages = [];
    for (const page of SITE_PAGES.filter((p) => p.guide)) {
      if (!guideFiles.delete(page.guide)) throw new Error(`docs/guides/${page.guide} is missing`);
      const guide = await renderGuide(path.join(guidesDir, page.guide), { ...contract, linkOperation });
      titles.set(page.file, guide.title);
      guidePages.push({ file: page.file, title: guide.title, body: guide.body });
      await writeFile(path.join(out, page.file), pageHtml({ file: page.file, title: guide.title, body: guide.body, toc: guide.toc, scripts: guide.tryIt.length ? ['try-it.js'] : [] }));
    }
    if (guideFiles.size) throw new Error(`docs/guides has guides no page lists (add them to SITE_PAGES in docs/build/layout.mjs): ${[...guideFiles].join(', ')}`);

    // 4b. The workflows: an index and a page per workflow, each with its "Run this workflow".
    for (const page of [workflowsIndexPage(), ...SITE_PAGES.filter((p) => p.workflow).map((p) => workflowPage(p.workflow, { ...contract, linkOperation }))]) {
      titles.set(page.file, page.title);
      // In the search as `workflow` results, beside (not instead of) the guides that tell the same flows.
      guidePages.push({ ...page, kind: 'workflow', body: page.body.replace(/<script[\s\S]*?<\/script>/g, '') });
      await writeFile(path.join(out, page.file), pageHtml({ file: page.file, title: page.title, body: page.body, toc: page.toc, scripts: page.file === 'workflows.html' ? [] : ['try-it.js'] }));
    }

    // 5. What the specification leaves unshown.
    const inferred = inferredPage(contract);
    await writeFile(path.join(out, 'unshown.html'), pageHtml({ file: 'unshown.html', title: inferred.title, body: inferred.body, toc: tocOf(inferred.body) }));

    // 6. Overview, stylesheet, and the descriptions themselves for download.
    const counts = {
      operations: listOperations(openapi).filter((op) => op.path).length,
      webhooks: listOperations(openapi).filter((op) => op.webhook).length,
      channels: Object.keys(asyncapi.channels).length,
      eventTypes: events.types.length,
      inferred: inferred.count,
    };
    await writeFile(path.join(out, 'index.html'), indexPage({ openapi, asyncapi, counts, titles }));
    const css = (await readFile(path.join(buildDir, 'nav.css'), 'utf8')) + (await readFile(path.join(buildDir, 'site.css'), 'utf8'));
    await writeFile(path.join(out, 'assets/site.css'), css);
    for (const file of ['openapi.yaml', 'openapi.json', 'asyncapi.yaml']) await copyFile(path.join(generatedDir, file), path.join(out, file));
    await writeLlmsFiles(out, contract, titles);

    // 7. The site's scripts (try-it consoles, search) and the search index over every page.
    const bundles = await buildBrowserBundles(out, { catalog });
    const search = searchIndexScript([
      ...guidePages.flatMap((g) => sectionDocuments(g.file, g.title, g.body, g.kind)),
      ...sectionDocuments('events.html', events.title, events.body, 'events'),
      ...contractDocuments({ openapi, asyncapi }),
    ]);
    await writeFile(path.join(out, 'assets/search-index.js'), search.script);

    // 8. No dead internal link or anchor, nothing loaded from another host.
    const links = await checkSite(out, { openapi });
    if (links.problems.length) {
      throw new Error(`link check failed:\n${links.problems.map((p) => `  ${p.page}: ${p.link} (${p.reason})`).join('\n')}`);
    }

    return { out, pages: SITE_PAGES.map((p) => p.file), samples, counts, links: links.links, searchDocuments: search.count, scripts: bundles, ms: Date.now() - started };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Redoc shows a server's description (and its variables') as plain text in its servers box, so the
 * docs copy drops the Markdown code ticks there (the bundle itself keeps them).
 */
function plainServerDescriptions(document) {
  const plain = (text) => (typeof text === 'string' ? text.replaceAll('`', '') : text);
  for (const server of document.servers ?? []) {
    server.description = plain(server.description);
    for (const variable of Object.values(server.variables ?? {})) variable.description = plain(variable.description);
  }
}

/** Table of contents of a generated page: its h2 headings with ids. */
function tocOf(html, levels = [2]) {
  return [...html.matchAll(/<h([23]) id="([^"]+)">([\s\S]*?)<\/h\1>/g)]
    .filter(([, level]) => levels.includes(Number(level)))
    .map(([, level, id, inner]) => ({ id, level: Number(level), text: inner.replace(/<[^>]+>/g, '').replaceAll('&#39;', "'").replaceAll('&amp;', '&').trim() }));
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`docs: ${error.message}\nusage: node docs/build/build.mjs [--out <dir>]`);
      process.exit(2);
    }
    throw error;
  }
  if (options.help) {
    console.log('usage: node docs/build/build.mjs [--out <dir>]   (default docs/site)');
    return;
  }
  const result = await buildSite(options);
  console.log(
    `docs: ${result.pages.length} pages, ${result.samples} operations with code samples, ${result.counts.inferred} unshown details, ${result.links} internal links checked -> ${path.relative(process.cwd(), result.out) || '.'} (${result.ms} ms)`,
  );
  console.log(`docs: open ${pathToFileURL(path.join(result.out, 'index.html'))}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(`docs: ${error.message}`);
    process.exit(1);
  });
}
