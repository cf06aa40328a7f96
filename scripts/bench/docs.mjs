#!/usr/bin/env node
// The docs site's build time, its size, and how soon a try-it console answers (issue 19; part of
// `npm run bench`, protocol in scripts/bench.mjs). Goals: the build under 30 s; the first try-it
// answer under 2 s after the page loads (a fresh tab on "Getting a key": the service worker
// registered, the in-page mock started, the sign-up sent and answered), in Debian's headless
// Chromium served from loopback. Sizes: the whole folder, the reference page, the try-it script,
// the search script and its index.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { buildSite } from '../../docs/build/build.mjs';
import { launchChromium } from '../../test/helpers/chromium.ts';
import { serveSite } from '../serve-site.mjs';
import { benchOutput } from '../bench-support.mjs';

const { emit, progress } = benchOutput('docs');
const out = mkdtempSync(path.join(os.tmpdir(), 'docs-bench-'));
const mb = (bytes) => Math.round(bytes / 10_000) / 100;

function folderBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(file) : statSync(file).size;
  }
  return total;
}

try {
  progress('docs: building the site');
  const started = performance.now();
  const built = await buildSite({ out });
  const seconds = (performance.now() - started) / 1000;
  emit({ metric: 'build time (npm run docs)', value: Math.round(seconds * 10) / 10, unit: 's', target: '< 30', pass: seconds < 30 });
  emit({ metric: 'site size (whole folder)', value: mb(folderBytes(out)), unit: 'MB' });
  for (const file of ['reference.html', 'assets/try-it.js', 'assets/search.js', 'assets/search-index.js']) {
    const bytes = readFileSync(path.join(out, file));
    emit({ metric: `size of ${file}`, value: mb(bytes.length), unit: 'MB', detail: `${mb(gzipSync(bytes).length)} MB gzipped` });
  }
  emit({ metric: 'search documents', value: built.searchDocuments, unit: '' });

  progress('docs: first try-it answer in headless Chromium');
  const site = await serveSite(out);
  const browser = await launchChromium();
  try {
    const times = [];
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(`${site.origin}/getting-a-key.html`, { waitUntil: 'load' });
      const loaded = Date.now();
      const console = page.locator('section.try-it[data-operation="signUp"]');
      await console.locator('.try-it-send').click();
      await console.locator('[data-status]').waitFor({ timeout: 30_000 });
      times.push({ afterLoad: Date.now() - loaded, total: Date.now() - t0 });
      await context.close();
    }
    const worst = Math.max(...times.map((t) => t.afterLoad));
    emit({ metric: 'first try-it answer after page load (worst of 3 fresh tabs)', value: worst, unit: 'ms', target: '< 2000', pass: worst < 2000, detail: times.map((t) => `${t.afterLoad} ms (${t.total} ms from navigation)`).join(', ') });
  } finally {
    await browser.close();
    await site.close();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
