// A link check over the built site: every internal link and anchor resolves, and no page loads
// a resource (script, stylesheet, image) from another host. Run at the end of every build and
// by the tests.
//
// The two Redoc pages are single-page apps: their prerendered markup carries router links such as
// `/sign-up` that Redoc turns into `#/sign-up` when it starts, so only their navigation bar is
// checked here (the browser test follows their routes). Links INTO the reference
// (`reference.html#/<tag>/<operationId>`) are checked against the routes the bundle defines.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { listOperations } from './contract.mjs';
import { slug } from './html.mjs';

export const REDOC_PAGES = new Set(['reference.html', 'asyncapi.html']);

/** The hash routes of the reference page: tag pages and operation pages. */
export function referenceRoutes(openapi) {
  const routes = new Set(['/']);
  for (const op of listOperations(openapi)) {
    routes.add(`/${slug(op.tag)}`);
    routes.add(`/${slug(op.tag)}/${op.operationId.toLowerCase()}`);
  }
  return routes;
}

const ATTRIBUTE = /<(a|link|script|img|iframe|source|use|image)\b[^>]*?\s(href|src|xlink:href)="([^"]*)"/gi;

function decode(value) {
  return value.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>');
}

/** The part of a Redoc page that is the site's own: its navigation bar. */
function siteNav(html) {
  return /<nav class="site-nav"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
}

/**
 * Check every page of `siteDir`. Returns `{ pages, links, problems }`, where each problem is
 * `{ page, link, reason }`.
 */
export async function checkSite(siteDir, { openapi } = {}) {
  const files = (await readdir(siteDir)).filter((f) => f.endsWith('.html'));
  const html = new Map();
  for (const f of files) html.set(f, await readFile(path.join(siteDir, f), 'utf8'));
  const ids = new Map([...html].map(([f, text]) => [f, new Set([...text.matchAll(/\sid="([^"]+)"/g)].map((m) => decode(m[1])))]));
  const routes = openapi ? referenceRoutes(openapi) : null;
  const problems = [];
  let links = 0;

  function checkInternal(page, link) {
    links += 1;
    if (/^(mailto|tel|data|javascript):/i.test(link)) return;
    const [target, fragment] = link.split('#', 2);
    const targetFile = target === '' ? page : path.posix.normalize(target);
    if (targetFile.startsWith('/') || targetFile.startsWith('..')) {
      problems.push({ page, link, reason: 'leaves the site folder (absolute or parent path)' });
      return;
    }
    if (!existsSync(path.join(siteDir, targetFile))) {
      problems.push({ page, link, reason: `${targetFile} does not exist` });
      return;
    }
    if (fragment === undefined || fragment === '') return;
    if (REDOC_PAGES.has(targetFile)) {
      const route = fragment.replace(/\/$/, '') || '/';
      if (targetFile === 'reference.html' && routes && fragment.startsWith('/') && !routes.has(route)) {
        problems.push({ page, link, reason: `no reference route ${fragment}` });
      }
      return;
    }
    if (!ids.get(targetFile)?.has(decodeURIComponent(fragment))) problems.push({ page, link, reason: `no id="${fragment}" in ${targetFile}` });
  }

  for (const [page, text] of html) {
    const redoc = REDOC_PAGES.has(page);
    if (redoc && !siteNav(text)) problems.push({ page, link: '', reason: 'no site navigation bar' });
    for (const [, tag, attribute, raw] of text.matchAll(ATTRIBUTE)) {
      const link = decode(raw);
      const isResource = tag.toLowerCase() !== 'a';
      if (/^(https?:)?\/\//i.test(link)) {
        // Links out are allowed; loading anything from another host is not.
        if (isResource) problems.push({ page, link, reason: `<${tag} ${attribute}> loads from another host` });
        continue;
      }
      // In a Redoc page only the navigation bar holds the site's own links (see above).
      if (redoc && !isResource) continue;
      checkInternal(page, link);
    }
    if (redoc) for (const [, , , raw] of siteNav(text).matchAll(ATTRIBUTE)) checkInternal(page, decode(raw));
  }
  return { pages: files.length, links, problems };
}
