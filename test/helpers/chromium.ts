// Real headless Chromium for the browser tests: Debian's package, driven by playwright-core (no
// browser download). A file using it skips with one line saying why where Chromium is missing,
// unless REQUIRE_BROWSER=1 (npm run test:browser), which fails instead.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { listenLoopback } from './loopback-server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const BROWSER_REQUIRED = process.env.REQUIRE_BROWSER === '1';
export const CHROMIUM_AVAILABLE = existsSync(CHROMIUM);
export const CHROMIUM_MISSING = `Chromium not found at ${CHROMIUM} (install Debian's chromium package; npm run test:browser fails instead of skipping)`;

/** Whether a browser suite should be skipped here; says why once, naming the suite. */
export function skipBrowser(suite: string): boolean {
  const skip = !CHROMIUM_AVAILABLE && !BROWSER_REQUIRED;
  if (skip) console.warn(`${suite} skipped: ${CHROMIUM_MISSING}`);
  return skip;
}

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** `extraArgs`: more Chromium switches (`--host-resolver-rules=MAP evil.example 127.0.0.1` for a page on another origin). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!CHROMIUM_AVAILABLE) throw new Error(CHROMIUM_MISSING);
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

/**
 * A page of `context`, which reaches loopback only: a request to another host is aborted and kept
 * in `outside`; an uncaught error or a console error (but a 4xx/5xx status the page asked for) in `errors`.
 */
export async function loopbackPage(context: BrowserContext, outside: string[], errors: string[]): Promise<Page> {
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (/^(data|blob|about):$/.test(url.protocol) || url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of [45]\d\d/.test(message.text())) errors.push(message.text());
  });
  return page;
}

/** A front end on another port than the mock: an empty page served on 127.0.0.1, and Chromium to open it in. */
export interface FrontEnd {
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** Starts a {@link FrontEnd} whose page is titled `title`; `close` stops the browser, then the page's server. */
export async function startFrontEnd(title: string): Promise<FrontEnd> {
  const page = await listenLoopback(createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${title}</title>`)));
  const browser = await launchChromium().catch(async (error: unknown) => {
    await page.close();
    throw error;
  });
  return { origin: page.url, browser, close: async () => (await browser.close(), await page.close()) };
}
