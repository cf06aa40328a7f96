// The code generators API consumers run on this contract (issue 18), each as its users run it:
// default options, types only where the tool can write types alone, one output per tool. Each
// adapter says how to run the tool on a bundled description and how to name a component schema
// in what it wrote, so the rules of ./generator-rules.ts can be checked the same way for all.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietly } from './quietly.js';
import type { JsonObject as Json } from '../../src/contract/json-pointer.js';


const here = path.dirname(fileURLToPath(import.meta.url));

export interface Generator {
  /** The tool's name, as the compatibility table names it. */
  name: string;
  /** The npm package whose installed version the table states. */
  packageName: string;
  /** Short name for files and folders. */
  slug: string;
  /** Run the tool on `document` (also written to `documentFile`), writing into `dir/<slug>`. */
  generate(document: Json, documentFile: string, dir: string): Promise<void>;
  /** Import lines a fixture in `dir` needs. */
  imports: string;
  /** A TypeScript type for component schema `name`: `input` is what a request body is typed as. */
  schema(name: string, side?: 'input' | 'output'): string;
}

/**
 * The installed version of a package as this folder's code imports it: its package.json (whatever
 * its `exports` allow), looked up as Node looks up a bare import from `from`: this folder's own
 * install (scripts/tools-install.mjs compat) first, then the repository's.
 */
export function installedVersion(packageName: string, from = here): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'node_modules', packageName, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).version;
    if (dir === path.dirname(dir)) throw new Error(`${packageName} is not installed where ${from} can import it (node scripts/tools-install.mjs --list)`);
  }
}

/** Every file under a directory. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** The TypeScript files a generator wrote. */
export function writtenBy(generator: Generator, dir: string): string[] {
  const own = path.join(dir, generator.slug);
  return filesUnder(own).filter((f) => f.endsWith('.ts'));
}

export const GENERATORS: Generator[] = [
  {
    // The types this package ships (generated/types/openapi.ts): openapi-typescript with the
    // options and transforms of scripts/generate.mjs, for comparison with the tools as users run them.
    name: 'numbers-api-contract types',
    packageName: 'numbers-api-contract',
    slug: 'contract-types',
    async generate(document, _file, dir) {
      const { generateOpenapiTypes } = await import('../generate.mjs');
      mkdirSync(path.join(dir, this.slug), { recursive: true });
      writeFileSync(path.join(dir, this.slug, 'index.ts'), await generateOpenapiTypes(document));
    },
    imports: `import type { components as ContractTypes } from './contract-types/index';`,
    schema: (name) => `ContractTypes['schemas'][${JSON.stringify(name)}]`,
  },
  {
    name: 'openapi-typescript',
    packageName: 'openapi-typescript',
    slug: 'openapi-typescript',
    async generate(document, _file, dir) {
      const { default: openapiTS, astToString } = await import('openapi-typescript');
      mkdirSync(path.join(dir, this.slug), { recursive: true });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      writeFileSync(path.join(dir, this.slug, 'index.ts'), astToString(await openapiTS(document as any, { silent: true })));
    },
    imports: `import type { components as OpenapiTypescript } from './openapi-typescript/index';`,
    schema: (name) => `OpenapiTypescript['schemas'][${JSON.stringify(name)}]`,
  },
  {
    name: '@hey-api/openapi-ts',
    packageName: '@hey-api/openapi-ts',
    slug: 'hey-api',
    async generate(document, _file, dir) {
      const { createClient } = await import('@hey-api/openapi-ts');
      await createClient({ input: document, output: path.join(dir, this.slug), plugins: ['@hey-api/typescript'], logs: { level: 'silent' } });
    },
    imports: `import type * as HeyApi from './hey-api/types.gen';`,
    schema: (name) => `HeyApi.${name}`,
  },
  {
    name: 'orval',
    packageName: 'orval',
    slug: 'orval',
    async generate(_document, file, dir) {
      // The fetch client needs no runtime dependency; its models are what a consumer imports.
      // Imported inside `quietly`: orval keeps the `console.log` it finds when it loads.
      await quietly(async () => {
        const { generate } = await import('orval');
        await generate({ input: { target: file }, output: { target: path.join(dir, this.slug, 'index.ts'), client: 'fetch', mode: 'single' } });
      });
    },
    imports: `import type * as Orval from './orval/index';`,
    schema: (name) => `Orval.${name}`,
  },
  {
    name: '@kubb (plugin-oas + plugin-ts)',
    packageName: '@kubb/plugin-ts',
    slug: 'kubb',
    async generate(_document, file, dir) {
      const { build } = await import('@kubb/core');
      const { pluginOas } = await import('@kubb/plugin-oas');
      const { pluginTs } = await import('@kubb/plugin-ts');
      // Its file storage writes some files relative to the working directory, whatever `root`
      // says: run it from the output folder so that nothing lands in the repository.
      const cwd = process.cwd();
      process.chdir(dir);
      let result;
      try {
        result = await build({
          config: { root: dir, input: { path: file }, output: { path: this.slug, clean: true }, plugins: [pluginOas({ generators: [] }), pluginTs()] },
        });
      } finally {
        process.chdir(cwd);
      }
      if (result.error) throw result.error;
      if (result.failedPlugins?.size) throw new Error(`kubb plugins failed: ${[...result.failedPlugins].map((p) => p.plugin?.name ?? String(p)).join(', ')}`);
    },
    imports: `import type * as Kubb from './kubb/index';`,
    schema: (name) => `Kubb.${name}`,
  },
  {
    name: 'typed-openapi',
    packageName: 'typed-openapi',
    slug: 'typed-openapi',
    async generate(document, _file, dir) {
      const { generateFile, mapOpenApiEndpoints } = await import('typed-openapi');
      mkdirSync(path.join(dir, this.slug), { recursive: true });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      writeFileSync(path.join(dir, this.slug, 'index.ts'), generateFile({ ...mapOpenApiEndpoints(document as any), runtime: 'none' }));
    },
    imports: `import type { Schemas as TypedOpenapi } from './typed-openapi/index';`,
    schema: (name) => `TypedOpenapi.${name}`,
  },
  {
    name: 'openapi-zod-client',
    packageName: 'openapi-zod-client',
    slug: 'openapi-zod-client',
    async generate(document, _file, dir) {
      const { generateZodClientFromOpenAPI } = await import('openapi-zod-client');
      mkdirSync(path.join(dir, this.slug), { recursive: true });
      // Its schemas-only template: the zod schemas without the zodios client around them.
      await quietly(() =>
        generateZodClientFromOpenAPI({
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          openApiDoc: document as any,
          distPath: path.join(dir, this.slug, 'index.ts'),
          templatePath: path.join(here, 'node_modules/openapi-zod-client/src/templates/schemas-only.hbs'),
          options: { shouldExportAllSchemas: true },
        }),
      );
    },
    imports: `import type { z } from 'zod';\nimport type { schemas as Zod } from './openapi-zod-client/index';`,
    schema: (name, side = 'input') => `z.${side}<typeof Zod[${JSON.stringify(name)}]>`,
  },
  {
    name: 'swagger-typescript-api',
    packageName: 'swagger-typescript-api',
    slug: 'swagger-typescript-api',
    async generate(document, _file, dir) {
      const { generateApi } = await import('swagger-typescript-api');
      await quietly(() => generateApi({ spec: document as never, output: path.join(dir, this.slug), generateClient: false, silent: true }));
    },
    imports: `import type * as Sta from './swagger-typescript-api/Api';`,
    schema: (name) => `Sta.${name}`,
  },
];

/** The compiler options a consumer of every tool's output needs (extensionless and `.ts` imports; the zod openapi-zod-client is built on). */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2022', 'DOM'],
  module: 'ESNext',
  moduleResolution: 'Bundler',
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  types: [] as string[],
  baseUrl: here,
  // openapi-zod-client 1.18 writes zod 3 code and depends on zod 3 (its own, nested in this
  // folder's install); a zod hoisted above it may be another package's zod 4.
  paths: { zod: ['node_modules/openapi-zod-client/node_modules/zod'] },
};
