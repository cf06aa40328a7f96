// The guides: Markdown in docs/guides/, rendered with marked into the shared layout.
//
// Guides hold what a reference cannot show; anything the contract already says is generated from
// the bundle, never copied by hand, in a region the Markdown source holds between two marker lines:
//
//   <!-- generated:start error-codes (npm run guides) -->
//   | Code | Status | ... |                 (Markdown, so the source reads right on GitHub)
//   <!-- generated:end -->
//
// `npm run guides` rewrites every region from the contract and test/guides.test.ts fails while a
// region differs from what the contract gives today. The site never uses the committed text: it
// renders each region afresh from the contract at build time, as HTML (diagrams, links):
//
//   state-machine signUp    one machine of x-state-machines, as SVG + table
//   state-machines          all of them
//   error-codes             the ErrorCode catalog
//   message-send-errors     the named 400 examples of sendMessage
//   event-types             the documented event types
//   example-names           the example names per operation and status (`Prefer: example=`)
//   servers                 the servers of the OpenAPI description
//   test-values             the mock's documented test values (x-test-values)
//   mock-control            the mock's control surface (generated/mock-control.json)
//   workflow placeCallWithReplay   one Arazzo workflow's steps (generated/workflows.arazzo.json),
//                           linked to its page (docs/build/workflows-page.mjs)
//   conformance-rules       the conformance suite's rule table (conformance/rules.ts), in
//                           conformance/README.md
//
// A line `Try it: \`POST /api/v1/auth/signup\`, ...` becomes a try-it console for each operation it
// names. A code span naming an operation (`POST /api/v1/calls`) becomes a link to it in the
// reference; one naming an operation the contract lacks fails the build. Links to another guide
// (`errors.md#...`) become links to its page, so the Markdown reads correctly in the repository too.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Marked } from 'marked';
import { conformanceRulesSummary, conformanceRulesTable } from './conformance-rules.mjs';
import { documentedEventTypes } from './events-page.mjs';
import { errorCodesTable, messageSendErrorsTable } from './error-codes.mjs';
import { escapeHtml, markdownInline, slug } from './html.mjs';
import { machineSection } from './state-diagrams.mjs';
import { listOperations } from './contract.mjs';
import { errorCodeCatalog } from './error-codes.mjs';
import { listExampleNames } from '../../src/mock/example-names.ts';
import { SITE_PAGES } from './layout.mjs';
import { partMarkdown, partsIndexMarkdown } from './parts.mjs';
import { workflowRegionHtml, workflowRegionMarkdown } from './workflows-page.mjs';

/** A generated region: its block name, optional argument, and the Markdown between the markers. */
const REGION = /^<!-- generated:start ([a-z-]+)(?: ([A-Za-z0-9_-]+))? \(npm run guides\) -->\n([\s\S]*?)^<!-- generated:end -->$/gm;
/** A bare marker of the old form, with no content: refused (it reads as nothing on GitHub). */
const BARE_MARKER = /^<!-- generated: [^>]*-->$/m;
/** `Try it: `POST /api/v1/...`, `GET /api/v1/...`` on a line of its own. */
const TRY_IT = /^Try it: ((?:`[A-Z]+ \/api\/v1\/[^`]+`(?:, | and )?)+)\.?$/gm;

/** A Markdown table cell: one line, pipes escaped. */
const cell = (text) => String(text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
/** A Markdown table. */
const mdTable = (head, rows) => [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

/** The conformance suite's rule table, its counts first (docs/build/conformance-rules.mjs). */
function conformanceRulesMarkdown() {
  const { head, rows } = conformanceRulesTable();
  return `${conformanceRulesSummary()}\n\n${mdTable(head, rows)}`;
}

/** The example names a frontend can select with `Prefer`, one row per operation (src/mock/example-names.ts). */
function exampleNamesMarkdown(openapi) {
  const code = (name) => `\`${name}\``;
  return mdTable(
    ['Operation', 'Success examples (`Prefer: example=<name>`)', 'Other statuses (`Prefer: code=<status>, example=<name>`)'],
    listExampleNames(openapi).map((operation) => {
      const success = operation.responses.find((response) => response.status === operation.defaultStatus);
      const others = operation.responses.filter((response) => response !== success).map((response) => `${response.status}: ${response.names.map(code).join(', ')}`);
      return [`\`${operation.method} ${operation.path}\``, success ? success.names.map(code).join(', ') : '', others.join('; ')];
    }),
  );
}

/** The generated blocks a guide may ask for, by name. */
function blockRenderers({ openapi, dereferenced, asyncapi, mockControl, linkOperation }) {
  const machines = openapi['x-state-machines'] ?? {};
  const operationName = new Map(listOperations(openapi).filter((op) => op.operationId).map((op) => [op.operationId, `${op.method.toUpperCase()} ${op.path}`]));
  const opLink = (operationId) => {
    const name = operationName.get(operationId);
    if (!name) throw new Error(`x-test-values names an operation the contract lacks: ${operationId}`);
    const link = linkOperation(name);
    return link ? `<a href="${escapeHtml(link)}"><code>${escapeHtml(name)}</code></a>` : `<code>${escapeHtml(name)}</code>`;
  };
  return {
    'test-values': async () =>
      `<table class="test-values"><thead><tr><th>Value</th><th>Field</th><th>Operations</th><th>Answer</th><th>What it stands for</th></tr></thead><tbody>${(openapi['x-test-values'] ?? [])
        .map(
          (entry) =>
            `<tr id="test-value-${slug(entry.name)}"><td><code>${escapeHtml(entry.value)}</code></td><td><code>${escapeHtml(entry.field)}</code></td><td>${entry.operations.map(opLink).join('<br>')}</td><td>${
              entry.status ? `${escapeHtml(String(entry.status))} <code>${escapeHtml(entry.example ?? '')}</code>` : 'accepted'
            }</td><td>${markdownInline(entry.description ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table>`,
    'mock-control': async () => {
      if (!mockControl) throw new Error('generated/mock-control.json is missing; run `npm run bundle`');
      const rows = listOperations(mockControl).map((op) => {
        const body = op.operation.requestBody?.content?.['application/json']?.schema;
        const schema = body?.$ref ? mockControl.components.schemas[body.$ref.split('/').pop()] : body;
        const fields = Object.entries(schema?.properties ?? {})
          .map(([name, property]) => `<code>${escapeHtml(name)}</code>${(schema.required ?? []).includes(name) ? ' (required)' : ''}${property.description ? `: ${markdownInline(property.description)}` : ''}`)
          .join('<br>');
        const key = controlScope(op.operation.security ?? mockControl.security ?? []);
        return `<tr><td><code>${escapeHtml(`${op.method.toUpperCase()} ${op.path}`)}</code></td><td>${markdownInline(op.operation.summary ?? '')}${op.operation.description ? `<br><span class="muted">${markdownInline(op.operation.description.split('\n\n')[0].replace(/\n/g, ' '))}</span>` : ''}</td><td>${fields || 'none'}</td><td>${key}</td></tr>`;
      });
      return `<table class="mock-control"><thead><tr><th>Operation</th><th>What it does</th><th>Body</th><th>Acts on</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    },
    'state-machine': async (name) => {
      if (!machines[name]) throw new Error(`no state machine "${name}" in x-state-machines (have: ${Object.keys(machines).join(', ')})`);
      return machineSection(name, machines[name], { linkOperation });
    },
    'state-machines': async () => {
      const sections = [];
      for (const [name, machine] of Object.entries(machines)) sections.push(await machineSection(name, machine, { linkOperation }));
      return sections.join('\n');
    },
    'error-codes': async () => errorCodesTable(openapi, dereferenced),
    'message-send-errors': async () => messageSendErrorsTable(dereferenced),
    servers: async () =>
      `<table class="servers"><thead><tr><th>Server</th><th>Default</th><th>Description</th></tr></thead><tbody>${(openapi.servers ?? [])
        .map((server) => {
          let url = server.url;
          for (const [name, v] of Object.entries(server.variables ?? {})) url = url.replaceAll(`{${name}}`, v.default);
          return `<tr><td><code>${escapeHtml(server.url)}</code></td><td><code>${escapeHtml(url)}</code></td><td>${markdownInline(server.description ?? '')}</td></tr>`;
        })
        .join('')}</tbody></table>`,
    workflow: async (workflowId) => workflowRegionHtml(workflowId, { openapi, mockControl, linkOperation }),
    part: async (number) => guideMarked(linkOperation).parse(partMarkdown({ openapi, asyncapi }, number)),
    parts: async () => guideMarked(linkOperation).parse(partsIndexMarkdown({ openapi, asyncapi })),
    'example-names': async () => guideMarked(linkOperation).parse(exampleNamesMarkdown(openapi)),
    'conformance-rules': async () => guideMarked(linkOperation).parse(conformanceRulesMarkdown()),
    'event-types': async () =>
      `<ul>${documentedEventTypes(asyncapi)
        .map(({ type, description }) => `<li><a href="events.html#event-${slug(type)}"><code>${escapeHtml(type)}</code></a>: ${escapeHtml(description)}</li>`)
        .join('')}</ul>`,
  };
}

/**
 * The same blocks as Markdown, for the committed regions of the sources (what GitHub and the
 * tarballs show). Operations are code spans: the site links them, GitHub shows them.
 */
function markdownBlocks({ openapi, dereferenced, asyncapi, mockControl }) {
  const machines = openapi['x-state-machines'] ?? {};
  const operationName = new Map(listOperations(openapi).filter((op) => op.operationId).map((op) => [op.operationId, `${op.method.toUpperCase()} ${op.path}`]));
  const machine = (name, level) => {
    const m = machines[name];
    if (!m) throw new Error(`no state machine "${name}" in x-state-machines (have: ${Object.keys(machines).join(', ')})`);
    const rows = m.transitions.map((t) => [operationName.has(t.trigger) || /^[A-Z]+ \/api\//.test(t.trigger) ? `\`${t.trigger}\`` : t.trigger, t.from, t.condition ?? '', t.to, t.also ?? '']);
    return [
      `<a id="state-${slug(name)}"></a>`,
      '',
      `${'#'.repeat(level)} ${m.title}`,
      '',
      `Interface specification part ${m.source ?? '3'} · \`x-state-machines.${name}\`${m['x-inferred'] ? ` · **inferred**: ${cell(m['x-inferred-reason'])}` : ''}`,
      ...(m.description ? ['', m.description] : []),
      '',
      mdTable(['Trigger', 'From', 'Condition', 'To', 'Also'], rows),
    ].join('\n');
  };
  return {
    'test-values': () =>
      mdTable(
        ['Value', 'Field', 'Operations', 'Answer', 'What it stands for'],
        (openapi['x-test-values'] ?? []).map((e) => [`\`${e.value}\``, `\`${e.field}\``, e.operations.map((id) => `\`${operationName.get(id) ?? id}\``).join(', '), e.status ? `${e.status} \`${e.example ?? ''}\`` : 'accepted', e.description ?? '']),
      ),
    'mock-control': () => {
      if (!mockControl) throw new Error('generated/mock-control.json is missing; run `npm run bundle`');
      return mdTable(
        ['Operation', 'What it does', 'Body', 'Acts on'],
        listOperations(mockControl).map((op) => {
          const body = op.operation.requestBody?.content?.['application/json']?.schema;
          const schema = body?.$ref ? mockControl.components.schemas[body.$ref.split('/').pop()] : body;
          const fields = Object.entries(schema?.properties ?? {})
            .map(([name, property]) => `\`${name}\`${(schema.required ?? []).includes(name) ? ' (required)' : ''}${property.description ? `: ${property.description}` : ''}`)
            .join('; ');
          const acts = controlScope(op.operation.security ?? mockControl.security ?? []);
          return [`\`${op.method.toUpperCase()} ${op.path}\``, op.operation.summary ?? '', fields || 'none', acts];
        }),
      );
    },
    'state-machine': (name) => machine(name, 3),
    'state-machines': () => Object.keys(machines).map((name) => machine(name, 2)).join('\n\n'),
    'error-codes': () => {
      const { codes } = errorCodeCatalog(openapi);
      return mdTable(
        ['Code', 'Status', 'When', 'What a client should do'],
        codes.map(({ code, status, description, action }) => [`<a id="code-${code}"></a>\`${code}\``, String(status), description ?? '', action ?? '']),
      );
    },
    'message-send-errors': () => {
      const op = listOperations(dereferenced).find((o) => o.operationId === 'sendMessage');
      const examples = op?.operation.responses?.['400']?.content?.['application/json']?.examples ?? {};
      return mdTable(
        ['`error`', 'Cause', 'Example name'],
        Object.entries(examples).map(([name, example]) => {
          const error = example.value?.error;
          return [typeof error === 'string' ? error : `\`${JSON.stringify(error)}\``, example.summary ?? '', `\`${name}\``];
        }),
      );
    },
    servers: () =>
      mdTable(
        ['Server', 'Default', 'Description'],
        (openapi.servers ?? []).map((server) => {
          let url = server.url;
          for (const [name, v] of Object.entries(server.variables ?? {})) url = url.replaceAll(`{${name}}`, v.default);
          return [`\`${server.url}\``, `\`${url}\``, server.description ?? ''];
        }),
      ),
    'event-types': () => documentedEventTypes(asyncapi).map(({ type, description }) => `- \`${type}\`: ${description}`).join('\n'),
    workflow: (workflowId) => workflowRegionMarkdown(workflowId, { openapi, mockControl, linkOperation: () => null }),
    part: (number) => partMarkdown({ openapi, asyncapi }, number),
    parts: () => partsIndexMarkdown({ openapi, asyncapi }),
    'example-names': () => exampleNamesMarkdown(openapi),
    'conformance-rules': () => conformanceRulesMarkdown(),
  };
}

/**
 * A guide's source with every generated region rewritten from the contract (what `npm run guides`
 * writes, and what the test compares the committed file with).
 */
export function refreshGuideSource(source, context, file = 'guide') {
  if (BARE_MARKER.test(source)) throw new Error(`${file}: a bare "<!-- generated: ... -->" marker; write a region (<!-- generated:start NAME (npm run guides) --> ... <!-- generated:end -->)`);
  const blocks = markdownBlocks(context);
  return source.replace(REGION, (_all, name, arg) => {
    const render = blocks[name];
    if (!render) throw new Error(`${file}: unknown generated block "${name}"`);
    return `<!-- generated:start ${name}${arg ? ` ${arg}` : ''} (npm run guides) -->\n${render(arg).trim()}\n<!-- generated:end -->`;
  });
}

/** Guide file → site page (`events.md` is `receiving-events.html`). */
const GUIDE_PAGES = new Map(SITE_PAGES.filter((p) => p.guide).map((p) => [p.guide, p.file]));

/** The site page a guide's relative link points to, or the link unchanged. */
export function guideLinkTarget(href) {
  const match = /^(?:\.\/)?([\w-]+\.md)(#.*)?$/.exec(href);
  if (!match) return href;
  const page = GUIDE_PAGES.get(match[1]);
  if (!page) throw new Error(`a guide links to ${href}, which is no guide of the site`);
  return `${page}${match[2] ?? ''}`;
}

/** A Marked instance for guides: heading ids, operation links, guide links to their pages. */
function guideMarked(linkOperation) {
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth, text }) {
        const id = slug(text.replace(/`/g, ''));
        return `<h${depth} id="${id}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      codespan({ text }) {
        // marked 18 hands the renderer the raw text of a code span: escape it here.
        const link = linkOperation(text);
        const code = `<code>${escapeHtml(text)}</code>`;
        return link ? `<a href="${escapeHtml(link)}">${code}</a>` : code;
      },
      link({ href, title, tokens }) {
        const target = guideLinkTarget(href);
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${this.parser.parseInline(tokens)}</a>`;
      },
    },
  });
  return marked;
}

/** Render one guide: `{ title, body, toc, tryIt }` for the shared layout (`tryIt`: the operations it lets the reader try). */
export async function renderGuide(file, context) {
  const source = await readFile(file, 'utf8');
  if (BARE_MARKER.test(source)) throw new Error(`${path.basename(file)}: a bare "<!-- generated: ... -->" marker; write a region instead`);
  const blocks = blockRenderers(context);
  const operationIds = new Map(listOperations(context.openapi).filter((op) => op.path).map((op) => [`${op.method.toUpperCase()} ${op.path}`, op.operationId]));
  // Replace each region with its generated HTML (as a raw HTML block, blank lines around), and
  // each "Try it:" line with a console per operation.
  const tryIt = [];
  const replacements = [];
  for (const match of source.matchAll(REGION)) {
    const [all, name, arg] = match;
    const render = blocks[name];
    if (!render) throw new Error(`${path.basename(file)}: unknown generated block "${name}"`);
    // No blank lines inside: CommonMark ends an HTML block at the first blank line.
    const html = (await render(arg)).trim().replace(/\n\s*\n/g, '\n');
    replacements.push({ at: match.index, length: all.length, text: `\n\n${html}\n\n` });
  }
  for (const match of source.matchAll(TRY_IT)) {
    const ids = [...match[1].matchAll(/`([^`]+)`/g)].map(([, name]) => {
      const id = operationIds.get(name);
      if (!id) throw new Error(`${path.basename(file)}: "Try it:" names ${name}, which is no operation of the bundled description`);
      return id;
    });
    tryIt.push(...ids);
    const mounts = ids.map((id) => `<div class="try-it-mount" data-try-it="${escapeHtml(id)}"><p class="muted">Try it: <code>${escapeHtml(operationName(context.openapi, id))}</code> (the console needs JavaScript)</p></div>`).join('\n');
    replacements.push({ at: match.index, length: match[0].length, text: `\n\n${mounts}\n\n` });
  }
  replacements.sort((a, b) => a.at - b.at);
  let markdown = '';
  let last = 0;
  for (const r of replacements) {
    markdown += source.slice(last, r.at) + r.text;
    last = r.at + r.length;
  }
  markdown += source.slice(last);

  const title = /^# (.+)$/m.exec(markdown)?.[1];
  if (!title) throw new Error(`${path.basename(file)} has no "# " title`);
  const body = guideMarked(context.linkOperation).parse(markdown);
  const toc = [...body.matchAll(/<h2 id="([^"]+)">([\s\S]*?)<\/h2>/g)].map(([, id, html]) => ({
    id,
    text: html.replace(/<[^>]+>/g, '').replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"'),
  }));
  return { title: title.replace(/`/g, ''), body, toc, tryIt };
}

function operationName(openapi, id) {
  const op = listOperations(openapi).find((o) => o.operationId === id);
  return `${op.method.toUpperCase()} ${op.path}`;
}

/**
 * What a control operation acts on, from its security: the account of the key when every way in
 * names the key (`bearerAuth`), the whole mock when none does, either when some do (a snapshot of
 * every account, or of the key's).
 */
function controlScope(security) {
  const keyed = security.filter((requirement) => 'bearerAuth' in requirement).length;
  if (security.length > 0 && keyed === security.length) return 'the account of the key';
  return keyed > 0 ? 'the whole mock, or the account of the key' : 'the whole mock';
}
