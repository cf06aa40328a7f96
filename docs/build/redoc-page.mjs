// One Redoc page (the API reference, or the AsyncAPI reference) built by `redocly build-docs`,
// self-contained so that it loads nothing from outside hosts.
//
// - `--inlineBundle` embeds Redoc's standalone script from node_modules/@redocly/cli instead of
//   the default <script src> on Redocly's CDN.
// - REDOCLY_TELEMETRY=off stops the CLI's usage report AND makes the page render with Redoc's
//   `disableTelemetry: true` (build-docs derives one from the other).
// - Redoc 3.0.1 renders a "API docs by Redocly" attribution whose logo is an <img> on
//   cdn.redoc.ly; it is swapped for an inline SVG wordmark (the attribution and its link stay).
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { navHtml, SCRIPT } from './layout.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const redoclyBin = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');

/** Image URLs Redoc's bundle would fetch from Redocly's CDN, and what replaces each. */
const REDOCLY_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16"><text x="0" y="12" font-family="Helvetica,Arial,sans-serif" font-size="12" font-weight="700" fill="#0044D4">Redocly</text></svg>',
)}`;
export const OFFLINE_REPLACEMENTS = [
  ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', REDOCLY_LOGO],
  ['https://cdn.redoc.ly/redoc/logo-mini.svg', REDOCLY_LOGO],
];

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`redocly build-docs exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Build `output` (an HTML file in the site) from the description file `input` (OpenAPI or
 * AsyncAPI: `kind` says which). `page` is the page's file name, for the navigation bar.
 */
export async function buildRedocPage({ input, output, title, page, kind, redocOptions, scripts = [] }) {
  const navCss = await readFile(path.join(here, 'nav.css'), 'utf8');
  await run(
    process.execPath,
    [
      redoclyBin,
      'build-docs',
      input,
      '--output',
      output,
      '--title',
      title,
      '--inlineBundle',
      '--template',
      path.join(here, 'templates/redoc.hbs'),
      '--templateOptions.navCss',
      navCss,
      '--templateOptions.navHtml',
      navHtml(page) + scripts.map(SCRIPT).join(''),
      // No lint config is wanted here: the bundle is linted by `npm run lint`.
      '--lint-config',
      'off',
      // Redoc options as JSON (`--openapi` or `--asyncapi`, by the document's kind).
      ...(redocOptions ? [`--${kind}`, JSON.stringify(redocOptions)] : []),
    ],
    { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  );
  let html = await readFile(output, 'utf8');
  for (const [from, to] of OFFLINE_REPLACEMENTS) {
    if (!html.includes(from)) {
      throw new Error(`${path.basename(output)}: Redoc no longer references ${from}; review OFFLINE_REPLACEMENTS in docs/build/redoc-page.mjs.`);
    }
    html = html.replaceAll(from, to);
  }
  await writeFile(output, html);
}
