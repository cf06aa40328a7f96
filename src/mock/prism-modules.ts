// Loading Prism's own modules (for the example server's Prism processes, prism-child.ts, and for
// Prism's validator in-process, prism-gate.ts): resolved from @stoplight/prism-cli's location, so
// both use exactly the modules of the pinned CLI whatever npm hoisted.
import Module, { createRequire } from 'node:module';

export const requireFromPrism = createRequire(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json'));

/** Puts `exports` in the module cache as the module `specifier` resolves to from `from`. */
function preload(from: NodeJS.Require, specifier: string, exports: unknown): void {
  const filename = from.resolve(specifier);
  const cached = new Module(filename);
  cached.filename = filename;
  cached.loaded = true;
  cached.exports = exports;
  from.cache[filename] = cached;
}

/**
 * Start-up (measured in scripts/bench/mock.mjs; the target is under 3 s from `npm start` to the
 * first answer). Two things Prism loads and the mock never uses are answered from the cache:
 * - `@faker-js/faker`, whose main entry builds all of faker's 60-odd locales when loaded (most of
 *   Prism's load time). Prism only uses faker for dynamic examples (`Prefer: dynamic=true`), in
 *   English, faker's default locale: it gets the English-only build, in the shape it reads
 *   (`.default`). Static examples are untouched; dynamic ones come from the same English data.
 * - `postman-collection`, behind Prism's reader of Postman collections. The mock serves an OpenAPI
 *   description (`--document` must be one), so that reader is never called.
 * If the layout of Prism's dependencies ever differs, Prism loads them as usual.
 */
export function skipUnusedPrismModules(): void {
  try {
    const fromPrismHttp = createRequire(requireFromPrism.resolve('@stoplight/prism-http'));
    const english = fromPrismHttp('@faker-js/faker/locale/en') as object;
    preload(fromPrismHttp, '@faker-js/faker', { __esModule: true, default: english, faker: english });
    preload(createRequire(fromPrismHttp.resolve('@stoplight/http-spec/postman/operation')), 'postman-collection', {});
  } catch {
    // leave them to Prism
  }
}

