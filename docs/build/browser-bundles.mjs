// The site's two scripts, bundled with esbuild at build time from docs/build/browser/:
//
//   assets/search.js   the site-wide search (MiniSearch), on every page;
//   assets/try-it.js   the try-it consoles: the operation catalog (try-it-catalog.mjs), this
//                      package's MSW handlers (src/msw, with the contract they answer from) and
//                      msw's browser worker; on the reference and the guides that try operations.
//
// and mockServiceWorker.js, msw's own worker script, at the site's root (a service worker
// controls the pages at and below its own folder). Classic scripts (IIFE), not modules, so that
// the pages work from disk (file://), where Chromium refuses module scripts.
import { copyFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
export const WORKER_SCRIPT = path.join(path.dirname(require.resolve('msw/package.json')), 'lib/mockServiceWorker.js');

async function bundle(entry, outfile, define = {}) {
  const result = await build({
    entryPoints: [path.join(here, 'browser', entry)],
    outfile,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    loader: { '.css': 'text' },
    define,
    metafile: true,
    logLevel: 'warning',
  });
  return Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}

/** Writes the scripts into `out`; returns their sizes in bytes. */
export async function buildBrowserBundles(out, { catalog }) {
  const [search, tryIt] = await Promise.all([
    bundle('search/main.ts', path.join(out, 'assets/search.js')),
    bundle('try-it/main.ts', path.join(out, 'assets/try-it.js'), {
      __TRY_IT_CATALOG__: JSON.stringify(catalog),
      'process.env.NODE_ENV': '"production"',
    }),
  ]);
  await copyFile(WORKER_SCRIPT, path.join(out, 'mockServiceWorker.js'));
  return { search, tryIt };
}


