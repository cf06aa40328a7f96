// The guides: Markdown in docs/guides/, rendered with marked into the shared layout.
//
// Guides hold what a reference cannot show; anything the contract already says is pulled in
// from the bundle at build time by a marker line, never copied by hand:
//
//   <!-- generated: state-machine signUp -->     one machine of x-state-machines, as SVG + table
//   <!-- generated: state-machines -->           all of them
//   <!-- generated: error-codes -->              the ErrorCode catalog
//   <!-- generated: message-send-errors -->      the named 400 examples of sendMessage
//   <!-- generated: event-types -->              the documented event types
//   <!-- generated: servers -->                  the servers of the OpenAPI description
//   <!-- generated: test-values -->              the mock's documented test values (x-test-values)
//   <!-- generated: mock-control -->             the mock's control surface (generated/mock-control.json)
//
// A code span naming an operation (`POST /api/v1/calls`) becomes a link to it in the reference;
// one naming an operation the contract lacks fails the build. Links to `other-guide.md` become
// `other-guide.html`, so the Markdown reads correctly in the repository too.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Marked } from 'marked';
import { documentedEventTypes } from './events-page.mjs';
import { errorCodesTable, messageSendErrorsTable } from './error-codes.mjs';
import { escapeHtml, markdownInline, slug } from './html.mjs';
import { machineSection } from './state-diagrams.mjs';
import { listOperations } from './contract.mjs';

const MARKER = /^<!-- generated: ([a-z-]+)(?: ([A-Za-z0-9_-]+))? -->$/gm;

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
        const key = (op.operation.security ?? mockControl.security ?? []).length > 0 ? 'the account of the key' : 'the whole mock';
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
    'event-types': async () =>
      `<ul>${documentedEventTypes(asyncapi)
        .map(({ type, description }) => `<li><a href="events.html#event-${slug(type)}"><code>${escapeHtml(type)}</code></a>: ${escapeHtml(description)}</li>`)
        .join('')}</ul>`,
  };
}

/** A Marked instance for guides: heading ids, operation links, .md → .html links. */
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
        const target = href.replace(/^([\w-]+)\.md(#.*)?$/, '$1.html$2');
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${this.parser.parseInline(tokens)}</a>`;
      },
    },
  });
  return marked;
}

/** Render one guide: `{ title, body, toc }` for the shared layout. */
export async function renderGuide(file, context) {
  const source = await readFile(file, 'utf8');
  const blocks = blockRenderers(context);
  // Replace marker lines with their generated HTML (as raw HTML blocks, blank lines around).
  const pieces = [];
  let last = 0;
  for (const match of source.matchAll(MARKER)) {
    const [line, name, arg] = match;
    const render = blocks[name];
    if (!render) throw new Error(`${path.basename(file)}: unknown generated block "${name}"`);
    // No blank lines inside: CommonMark ends an HTML block at the first blank line.
    const html = (await render(arg)).trim().replace(/\n\s*\n/g, '\n');
    pieces.push(source.slice(last, match.index), `\n\n${html}\n\n`);
    last = match.index + line.length;
  }
  pieces.push(source.slice(last));
  const markdown = pieces.join('');

  const title = /^# (.+)$/m.exec(markdown)?.[1];
  if (!title) throw new Error(`${path.basename(file)} has no "# " title`);
  const body = guideMarked(context.linkOperation).parse(markdown);
  const toc = [...body.matchAll(/<h2 id="([^"]+)">([\s\S]*?)<\/h2>/g)].map(([, id, html]) => ({
    id,
    text: html.replace(/<[^>]+>/g, '').replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"'),
  }));
  return { title: title.replace(/`/g, ''), body, toc };
}
