// No control covers content, at 1280 and 390 px wide, on a page of each kind of the site: the two
// Redoc pages (the reference on an operation with code samples, and the AsyncAPI reference), the
// site's generated pages, a workflow's page, and the guides (the one with a try-it console and the
// one with the most code). On each, at the top, with each code block brought to the middle of the
// screen, and at the end: every piece of text outside a control is probed along its line boxes with
// document.elementFromPoint, and the topmost element there must not be a control (a button, a
// summary, a field, a tab) that does not hold that text. The page's bars (fixed or sticky, as wide
// as the screen, at its top or bottom: the site's bar, the narrow screen's bottom bar of the Redoc
// pages) are left out: content scrolls under them, as it scrolls off the screen. A screenshot of each
// page at each width goes to test-results/controls/.
//
// Without Chromium, `npm test` skips this file and says why on one line; `npm run test:browser`
// (REQUIRE_BROWSER=1) fails instead.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_PAGES } from '../../docs/build/layout.mjs';
import { serveSite } from '../../scripts/serve-site.mjs';
import { launchChromium, skipBrowser } from '../helpers/chromium.js';
import { repoRoot } from '../helpers/contract.js';
import { builtDocsSite } from '../helpers/docs-site.js';

const SKIP = skipBrowser('controls-cover-nothing browser tests');
const SHOTS = path.join(repoRoot, 'test-results/controls');
const REDOC_PAGES = new Set(['reference.html', 'asyncapi.html']);

/** What a control covers on the screen as it is now: `{ control, text }` per piece of text covered. */
function coveredText(): Array<{ control: string; text: string; at: [number, number] }> {
  const CONTROL = 'button, summary, input, select, textarea, [role="button"], [role="tab"], [role="menuitem"], [role="switch"]';
  let top = 0;
  let bottom = innerHeight;
  for (const element of Array.from(document.body.querySelectorAll('*'))) {
    const style = getComputedStyle(element);
    if (style.position !== 'fixed' && style.position !== 'sticky') continue;
    const box = element.getBoundingClientRect();
    if (box.width < innerWidth - 1 || box.height < 1 || !element.checkVisibility()) continue;
    if (box.top <= 0.5) top = Math.max(top, box.bottom);
    else if (box.bottom >= innerHeight - 0.5) bottom = Math.min(bottom, box.top);
  }
  // The controls on screen between the bars: only where one is can text be covered by one.
  const controls = Array.from(document.querySelectorAll(CONTROL))
    .map((element) => ({ element, box: element.getBoundingClientRect() }))
    .filter(({ element, box }) => box.width >= 1 && box.height >= 1 && box.bottom > top && box.top < bottom && box.right > 0 && box.left < innerWidth && element.checkVisibility());
  const found: Array<{ control: string; text: string; at: [number, number] }> = [];
  if (!controls.length) return found;
  /** The part of a line box its scrolling ancestors show (text scrolled out of a box is not on screen). */
  const shown = (line: DOMRect, parent: Element) => {
    let { left, top: up, right, bottom: down } = line;
    for (let box: Element | null = parent; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const clip = box.getBoundingClientRect();
      left = Math.max(left, clip.left);
      up = Math.max(up, clip.top);
      right = Math.min(right, clip.right);
      down = Math.min(down, clip.bottom);
    }
    return { left, top: up, right, bottom: down };
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent?.trim() || !parent || parent.closest(CONTROL) || parent.closest('script, style, noscript')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    lines: for (const rect of Array.from(range.getClientRects())) {
      if (rect.width < 1 || rect.height < 1 || rect.bottom <= top || rect.top >= bottom) continue;
      for (const { box } of controls) {
        if (rect.right <= box.left || rect.left >= box.right || rect.bottom <= box.top || rect.top >= box.bottom) continue;
        const line = shown(rect, parent);
        // Inside both boxes by a pixel and a half: a control right beside the text does not cover it.
        const left = Math.max(line.left, box.left, 0) + 1.5;
        const right = Math.min(line.right, box.right, innerWidth) - 1.5;
        const y = (Math.max(line.top, box.top, top) + Math.min(line.bottom, box.bottom, bottom)) / 2;
        if (right < left || y <= Math.max(line.top, box.top) || y >= Math.min(line.bottom, box.bottom)) continue;
        if (!parent.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) break lines;
        for (let x = left; x <= right; x += Math.max(1, Math.min(4, right - left))) {
          const hit = document.elementFromPoint(x, y)?.closest(CONTROL);
          if (hit && !hit.contains(node)) {
            found.push({ control: `${hit.tagName.toLowerCase()} ${hit.getAttribute('aria-label') ?? hit.getAttribute('data-testid') ?? hit.className ?? ''}`.trim(), text: (node.textContent ?? '').trim().slice(0, 60), at: [Math.round(x), Math.round(y)] });
            break lines;
          }
        }
      }
    }
  }
  return found;
}

describe.skipIf(SKIP)('no control covers content', () => {
  let browser: Browser;
  let site: { origin: string; close(): Promise<void> };
  let pages: string[] = [];

  beforeAll(async () => {
    const built = await builtDocsSite();
    site = await serveSite(built.dir);
    browser = await launchChromium();
    const codeBlocks = (file: string) => (readFileSync(path.join(built.dir, file), 'utf8').match(/<pre\b/g) ?? []).length;
    const guides = SITE_PAGES.filter((p) => 'guide' in p);
    const withConsole = guides.find((p) => readFileSync(path.join(built.dir, p.file), 'utf8').includes('data-try-it'))!;
    const mostCode = [...guides].sort((a, b) => codeBlocks(b.file) - codeBlocks(a.file))[0]!;
    pages = [
      ...SITE_PAGES.filter((p) => !('guide' in p) && !('workflow' in p)).map((p) => p.file),
      SITE_PAGES.find((p) => 'workflow' in p)!.file,
      ...new Set([withConsole.file, mostCode.file]),
    ];
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** The covered text of a page: at the top, with each code block in the middle of the screen, and at the end. */
  async function coveredOn(page: Page, file: string, width: number): Promise<string[]> {
    // The reference on an operation whose right pane holds its code samples.
    const target = file === 'reference.html' ? 'reference.html#/messaging/sendmessage' : file;
    await page.goto('about:blank');
    await page.goto(`${site.origin}/${target}`);
    // Redoc has hydrated its prerendered markup once its search box stops saying Loading.
    if (REDOC_PAGES.has(file)) await page.waitForFunction(() => document.querySelector('[data-testid="search-trigger"]')?.textContent?.includes('Loading') === false);
    if (file === 'reference.html') await page.locator('.try-it-toggle').waitFor();
    const found = await page.evaluate(coveredText);
    await page.screenshot({ path: path.join(SHOTS, `${width}-${file.replace(/\.html$/, '.png')}`) });
    const blocks = await page.locator('pre').count();
    for (let i = 0; i < blocks; i += 1) {
      await page.evaluate((n) => document.querySelectorAll('pre')[n]!.scrollIntoView({ block: 'center' }), i);
      found.push(...(await page.evaluate(coveredText)));
    }
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    found.push(...(await page.evaluate(coveredText)));
    return [...new Set(found.map((f) => `${f.control} covers "${f.text}" at ${f.at.join(',')}`))];
  }

  it.each([1280, 390])('at %i px wide', async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 860 } });
    const problems: string[] = [];
    for (const file of pages) problems.push(...(await coveredOn(page, file, width)).map((p) => `${file}: ${p}`));
    await page.close();
    expect(pages.length).toBeGreaterThan(6);
    expect(problems).toEqual([]);
  }, 240_000);
});
