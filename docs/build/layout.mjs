// The shared page shell: one navigation bar across every page of the site (the generated pages,
// the guides and, through docs/build/templates/redoc.hbs, the two Redoc pages).
import { escapeHtml } from './html.mjs';
import { workflowPageEntries } from './workflows-page.mjs';

/**
 * Every page of the site, in navigation order. `file` is relative to the site root (the site is
 * flat, so every relative link works from file:// and from any static server path).
 */
export const SITE_PAGES = [
  { file: 'index.html', title: 'Overview', nav: 'Overview' },
  { file: 'reference.html', title: 'API reference', nav: 'API reference', group: 'Reference', quick: true },
  { file: 'events.html', title: 'Events reference', nav: 'Events', group: 'Reference', quick: true },
  { file: 'asyncapi.html', title: 'AsyncAPI reference', nav: 'AsyncAPI', group: 'Reference' },
  { file: 'getting-a-key.html', guide: 'getting-a-key.md', nav: 'Getting a key', group: 'Guides', quick: true, summary: 'Sign-up for a new or an existing account, as a diagram, and what to do when a step fails.' },
  { file: 'state-machines.html', guide: 'state-machines.md', nav: 'States', group: 'Guides', summary: 'Every state table of part 3 as a diagram.' },
  { file: 'errors.html', guide: 'errors.md', nav: 'Errors', group: 'Guides', summary: 'The error shape, each status, and what a client should do for each machine code.' },
  { file: 'retries-and-idempotency.html', guide: 'retries-and-idempotency.md', nav: 'Retries', group: 'Guides', summary: 'Which requests are safe to send again, and placing a call exactly once (part 7).' },
  { file: 'workflows.html', title: 'Workflows', nav: 'Workflows', group: 'Guides', summary: 'The multi-step jobs of the contract as Arazzo workflows: each step, what flows between them, and a button that runs one against the mock in the page.' },
  { file: 'limits.html', guide: 'limits.md', nav: 'Limits', group: 'Guides', summary: 'Call caps, free-account limits, messaging and lookup limits, and the values left unpublished (part 8).' },
  { file: 'versioning.html', guide: 'versioning.md', nav: 'Versioning', group: 'Guides', summary: 'Interface version 1, the base and legacy base addresses (part 9).' },
  { file: 'receiving-events.html', guide: 'events.md', nav: 'Receiving events', group: 'Guides', summary: 'events/wait, webhook subscriptions and numbers-api listen: what each guarantees, what the mock does, and a handler that verifies the signature.' },
  { file: 'installing.html', guide: 'installing.md', nav: 'Installing', group: 'The package', summary: 'What installs what, today and once published, the Node versions, and the folders with their own install.' },
  { file: 'types-and-client.html', guide: 'types-and-client.md', nav: 'Types & client', group: 'The package', summary: 'The TypeScript types and the typed client: installing them, the compiler settings they support, and what the client does.' },
  { file: 'local-tools.html', guide: 'local-tools.md', nav: 'Mock & tools', group: 'The package', summary: 'The mock server, the conformance suite, the listening agent and the event source of this package, each in short.' },
  { file: 'mock.html', guide: 'mock.md', nav: 'Stateful mock', group: 'The package', summary: 'What the mock keeps, the sign-up code, time, the control surface and the test values.' },
  { file: 'mock-in-process.html', guide: 'mock-in-process.md', nav: 'In-process mock', group: 'The package', summary: 'The stateful mock as MSW handlers: setups for vitest, a browser app and Storybook.' },
  { file: 'hosting.html', guide: 'hosting.md', nav: 'Hosting the mock', group: 'The package', summary: 'One mock for QA, previews and CI: several processes behind a load balancer, their state in Valkey or Redis.' },
  { file: 'recording.html', guide: 'recording.md', nav: 'Record and replay', group: 'The package', summary: 'What a frontend does on the mock, recorded as Arazzo workflows, replayed on the mock or a deployment, and checked against a contract change.' },
  { file: 'running-workflows.html', guide: 'workflows.md', nav: 'Running workflows', group: 'The package', summary: 'The Arazzo workflows of the contract: what they cover, running them with Redocly Respect, and where else they run.' },
  { file: 'mcp.html', guide: 'mcp.md', nav: 'MCP server', group: 'The package', summary: 'numbers-api mcp: the operations, workflows and events as tools for an agent, safe by default, and the configuration of three MCP clients.' },
  { file: 'docs-site.html', guide: 'docs-site.md', nav: 'Docs site', group: 'The package', summary: 'npm run docs: what the site holds, the Try it consoles and the mock in the page, the search, the code samples, and how it is checked.' },
  { file: 'tool-compatibility.html', guide: 'tool-compatibility.md', nav: 'Tools', group: 'The package', summary: 'What each code generator, renderer, validator and converter keeps of the contract, checked against the real tools.' },
  { file: 'checks.html', guide: 'checks.md', nav: 'Checks', group: 'The package', summary: 'What npm test checks, every command of the repository in full, and where the code is.' },
  { file: 'unshown.html', title: 'What the specification leaves unshown', nav: 'Unshown', group: 'Reference' },
  { file: 'interface-specification.html', guide: 'interface-specification.md', nav: 'Parts', group: 'Reference', summary: 'The nine parts of the interface specification, each on a page of what the contract says where it cites the part: where every "part N" citation of the package points.' },
  // One page per part, reached from the Parts page and from citations (listed in the menu only on itself).
  ...['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((n) => ({ file: `part-${n}.html`, guide: `part-${n}.md`, nav: `Part ${n}`, group: 'Reference', hidden: true })),
  // One page per workflow (docs/build/workflows-page.mjs), reached from the Workflows page and the guides.
  ...workflowPageEntries(),
];

/** The menu's groups, in order. */
const MENU_GROUPS = ['Reference', 'Guides', 'The package'];

/**
 * The navigation bar's HTML, with `current` (a file name) marked: the site's name, the one search,
 * a few quick links (wide screens; not on the Redoc pages, whose menu is their navigation) and the
 * Pages menu of every page by group, one line at every width (no sideways scroll).
 */
export function navHtml(current) {
  const link = (p, marked) => `<a href="${p.file}"${marked && p.file === current ? ' aria-current="page"' : ''}>${escapeHtml(p.nav)}</a>`;
  const shown = SITE_PAGES.filter((p) => !p.hidden || p.file === current);
  const quick = shown.filter((p) => p.quick).map((p) => link(p, false)).join('');
  const groups = MENU_GROUPS.map((group) => `<div class="site-menu-group"><p>${escapeHtml(group)}</p>${shown.filter((p) => p.group === group).map((p) => link(p, true)).join('')}</div>`).join('');
  const ungrouped = shown.filter((p) => !p.group).map((p) => link(p, true)).join('');
  const currentPage = SITE_PAGES.find((p) => p.file === current);
  const menu = `<details class="site-menu"><summary aria-label="Pages of the site">Pages<span class="site-menu-current">${currentPage ? `: ${escapeHtml(currentPage.nav)}` : ''}</span></summary><div class="site-menu-panel">${ungrouped}${groups}</div></details>`;
  return `<nav class="site-nav" aria-label="Site"><a class="site-name" href="index.html">Numbers API</a>${SEARCH_FORM}<div class="site-quick">${quick}</div>${menu}</nav>${SCRIPT('search.js')}`;
}

/** The site-wide search box (docs/build/browser/search/main.ts fills in the results). */
const SEARCH_FORM = '<form class="site-search" role="search" action="javascript:void 0"><input type="search" placeholder="Search guides, reference, events, errors (/)" aria-label="Search the whole site" autocomplete="off" spellcheck="false"></form>';

/** A script of the site's assets/ folder, deferred (classic: pages open from disk too). */
export const SCRIPT = (name) => `<script src="assets/${name}" defer></script>`;

/** Every table in a box of its own that scrolls sideways when the table is wider than the page. */
function scrollingTables(html) {
  return html.replace(/<table\b/g, '<div class="table-scroll"><table').replace(/<\/table>/g, '</table></div>');
}

/** A complete page of the site in the shared layout. */
export function pageHtml({ file, title, body, toc = [], scripts = [] }) {
  const tocHtml = toc.length
    ? `<aside class="toc" aria-label="On this page"><p>On this page</p><ul>${toc
        .map((t) => `<li class="toc-${t.level ?? 2}"><a href="#${escapeHtml(t.id)}">${escapeHtml(t.text)}</a></li>`)
        .join('')}</ul></aside>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Messaging and Voice Number Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/site.css">
</head>
<body>
${navHtml(file)}${scripts.map(SCRIPT).join('')}
<div class="page${toc.length ? ' with-toc' : ''}">
${tocHtml}
<main class="content">
${scrollingTables(body)}
</main>
</div>
</body>
</html>
`;
}
