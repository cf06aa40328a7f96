#!/usr/bin/env node
// npm run bundle: turn the split, hand-written description in spec/ into the single-file forms
// everything downstream reads (mock, docs, types, conformance):
//   generated/openapi.yaml, generated/openapi.json   bundled (internal $refs to #/components)
//   generated/openapi.dereferenced.json               no $ref at all, for tools that cannot follow one
//   generated/asyncapi.yaml, generated/asyncapi.json  bundled AsyncAPI 3.0, when spec/asyncapi.yaml exists
//   generated/mock-control.json                       the mock's control surface (spec/mock-control.yaml)
//   generated/mock.json                               both as the in-process mock reads them, prose left out
//   generated/workflows.arazzo.yaml, .json            the workflows (spec/workflows/, Arazzo 1.0.1)
//
// Components are one per file and named by the file's basename, unique across spec/ (house rule,
// see STYLE.md "deterministic bundle"). Redocly's bundler resolves a clash by renaming to `Foo-2`
// (or by silently merging two files with equal content), so this script refuses both: it fails,
// naming the files, before anything is written.
//
// Output is deterministic (component maps sorted by name, fixed formatting, trailing newline),
// so `test/contract-bundle.test.ts` can compare a fresh bundle with the committed files byte for byte.
//
// Usage: node scripts/bundle.mjs [--out <dir>] [--spec <openapi root>] [--asyncapi <asyncapi root>]

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A failure the user can act on: printed without a stack trace. */
export class BundleError extends Error {}

/** Directories of spec/ whose files are path items, not components (they are inlined, not named). */
const PATH_ITEM_DIRS = ['paths', 'webhooks'];

/** Redocly appends `-<n>` to a component name that clashes with a different one. */
const RENAME_SUFFIX = /-\d+$/;

const USAGE = `Usage: node scripts/bundle.mjs [--out <dir>] [--spec <openapi.yaml>] [--asyncapi <asyncapi.yaml>]

  --out <dir>        where to write the bundles (default: generated/)
  --spec <file>      root OpenAPI 3.1 document (default: spec/openapi.yaml)
  --asyncapi <file>  root AsyncAPI 3.0 document (default: asyncapi.yaml next to --spec, if it exists)
`;

function parseCommandLine(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        spec: { type: 'string' },
        asyncapi: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new BundleError(`${error.message}\n\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) return { help: true };
  for (const flag of ['out', 'spec', 'asyncapi']) {
    if (values[flag] !== undefined && values[flag].trim() === '') {
      throw new BundleError(`--${flag} needs a non-empty value.\n\n${USAGE}`);
    }
  }
  const spec = path.resolve(values.spec ?? path.join(repoRoot, 'spec/openapi.yaml'));
  if (!existsSync(spec)) throw new BundleError(`OpenAPI root document not found: ${spec}`);
  let asyncapi = values.asyncapi ? path.resolve(values.asyncapi) : path.join(path.dirname(spec), 'asyncapi.yaml');
  if (values.asyncapi && !existsSync(asyncapi)) throw new BundleError(`AsyncAPI root document not found: ${asyncapi}`);
  if (!existsSync(asyncapi)) asyncapi = null;
  const out = path.resolve(values.out ?? path.join(repoRoot, 'generated'));
  return { spec, asyncapi, out };
}

/**
 * Bundle one root document (OpenAPI or AsyncAPI) with Redocly: external $refs become named
 * components (schemas, responses, parameters, examples, headers, ...) or are inlined (path items).
 * Fails on unresolved references; Redocly's rename warnings are returned for the collision check.
 */
export async function bundleDescription(rootFile) {
  // Loaded here, not at the top: a bad flag is reported without waiting for Redocly to load.
  const { bundle, createConfig } = await import('@redocly/openapi-core');
  // An empty config: no decorators or preprocessors, so the bundle is exactly the source.
  const config = await createConfig({});
  const result = await bundle({ ref: rootFile, config });
  const relative = (file) => path.relative(repoRoot, file);
  const errors = [];
  const renames = [];
  for (const problem of result.problems) {
    const where = problem.location
      ?.map((loc) => `${relative(loc.source.absoluteRef)}${loc.pointer ? ` at ${loc.pointer}` : ''}`)
      .join(', ');
    const text = `${problem.message}${where ? ` (${where})` : ''}`;
    if (/Renamed .* to /.test(problem.message)) renames.push(text);
    else if (problem.severity === 'error') errors.push(text);
    else console.warn(`warning: ${text}`);
  }
  if (errors.length > 0) {
    throw new BundleError(`Bundling ${relative(rootFile)} failed:\n  - ${errors.join('\n  - ')}`);
  }
  return { document: result.bundle.parsed, files: [...result.fileDependencies], renames };
}

/**
 * Two component files with the same basename anywhere under the spec directory would get the
 * same component name: the house rule says that is a collision, whatever their content.
 * Returns one message per clash, naming every file involved.
 */
export function findBasenameCollisions(files, specDir, rootFiles) {
  const byName = new Map();
  for (const file of files) {
    if (rootFiles.includes(file)) continue;
    const relativeToSpec = path.relative(specDir, file);
    if (relativeToSpec.startsWith('..')) continue; // not under spec/: not ours to name
    const topDir = relativeToSpec.split(path.sep)[0];
    if (PATH_ITEM_DIRS.includes(topDir)) continue;
    const name = path.basename(file, path.extname(file));
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  const collisions = [];
  for (const [name, clashing] of byName) {
    const unique = [...new Set(clashing)].sort();
    if (unique.length > 1) {
      collisions.push(
        `component name "${name}" is claimed by ${unique.map((f) => path.relative(repoRoot, f)).join(' and ')}`,
      );
    }
  }
  return collisions.sort();
}

/** Component names that carry Redocly's rename suffix (`Foo-2`): a clash that was renamed. */
export function findRenamedComponents(document) {
  const renamed = [];
  for (const [type, map] of Object.entries(document.components ?? {})) {
    if (!map || typeof map !== 'object') continue;
    for (const name of Object.keys(map)) {
      if (RENAME_SUFFIX.test(name)) renamed.push(`#/components/${type}/${name}`);
    }
  }
  return renamed;
}

/**
 * Component maps in name order: the bundler adds components in the order it meets them, which
 * moves whenever a path file is edited; sorted maps keep the generated diff to the real change.
 */
export function sortComponents(document) {
  if (!document.components) return document;
  const components = {};
  for (const [type, map] of Object.entries(document.components)) {
    components[type] =
      map && typeof map === 'object' && !Array.isArray(map)
        ? Object.fromEntries(Object.keys(map).sort().map((name) => [name, map[name]]))
        : map;
  }
  document.components = components;
  return document;
}

/** Resolve a local JSON pointer (`#/components/schemas/Error`) in a document. */
function resolvePointer(document, ref) {
  const segments = ref
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = document;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object' || !(segment in node)) {
      throw new BundleError(`Cannot dereference ${ref}: "${segment}" not found`);
    }
    node = node[segment];
  }
  return node;
}

/**
 * A copy of the bundled document with every local $ref replaced by a copy of its target.
 * $ref siblings (3.1 allows `description` next to `$ref`) override the target's fields.
 * A reference back into a target that is still being expanded (a recursive schema) is left as
 * `$ref` so the output stays finite; the returned list names each such place.
 */
export function dereferenceDocument(document) {
  const cycles = [];
  const expand = (node, stack, where) => {
    if (Array.isArray(node)) return node.map((item, i) => expand(item, stack, `${where}/${i}`));
    if (node === null || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const { $ref, ...siblings } = node;
      if (stack.includes($ref)) {
        cycles.push(`${where} -> ${$ref}`);
        return { ...node };
      }
      const target = expand(resolvePointer(document, $ref), [...stack, $ref], where);
      const merged = target !== null && typeof target === 'object' && !Array.isArray(target)
        ? { ...target, ...expand(siblings, stack, where) }
        : target;
      return merged;
    }
    const copy = {};
    for (const [key, value] of Object.entries(node)) copy[key] = expand(value, stack, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    return copy;
  };
  return { document: expand(document, [], '#'), cycles };
}

export function toJson(document) {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export function toYaml(document) {
  // No anchors/aliases (the bundler shares objects between places), no line folding (diffs stay
  // line-for-line with the source), and `yaml` always ends the text with a newline.
  return stringifyYaml(document, { aliasDuplicateObjects: false, lineWidth: 0, minContentWidth: 0 });
}

/** Keywords that hold only prose for a reader (their value a string), never a rule or an answer. */
const PROSE = new Set(['description', 'summary', 'x-inferred-reason', 'x-client-action']);
/** Keywords whose value is data (an example, a value list), copied whole: a `description` in there is a field. */
const DATA = new Set(['value', 'examples', 'example', 'const', 'enum', 'default']);

/** A copy of a description without its prose; the data inside examples and value lists untouched. */
export function withoutProse(node) {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (node === null || typeof node !== 'object') return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (PROSE.has(key) && typeof value === 'string') continue;
    // An Example Object's `value`, a schema's `examples` list, `example`, `const`, `enum`, `default`:
    // data. (A `properties` map named `examples` would be a schema: it is an object of objects.)
    copy[key] = DATA.has(key) && !(key === 'examples' && isExampleMap(value)) ? value : withoutProse(value);
  }
  return copy;
}

/** A map of named Example Objects (a media type's or a parameter's `examples`), walked for their prose. */
function isExampleMap(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((entry) => entry && typeof entry === 'object' && ('value' in entry || '$ref' in entry));
}

/** The root of the workflows, beside the other files of spec/workflows/ (one area each). */
const WORKFLOWS_ROOT = 'arazzo.yaml';

/**
 * The workflows of spec/workflows/ as one Arazzo document: the root (`arazzo.yaml`: version, info,
 * source descriptions, components) with the `workflows` of every other file appended, in file-name
 * order. A file holds `workflows` and nothing else; a workflowId used twice fails, naming both
 * files (the same rule as a component name: no silent rename or merge).
 */
export function bundleWorkflows(dir) {
  const rootFile = path.join(dir, WORKFLOWS_ROOT);
  if (!existsSync(rootFile)) throw new BundleError(`${path.relative(repoRoot, rootFile)} is missing: the workflows need their root.`);
  const root = parseYaml(readFileSync(rootFile, 'utf8'));
  if ('workflows' in root) throw new BundleError(`${path.relative(repoRoot, rootFile)} holds workflows: keep them in the file of their area.`);
  const owner = new Map();
  const workflows = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== WORKFLOWS_ROOT).sort()) {
    const file = path.join(dir, name);
    const part = parseYaml(readFileSync(file, 'utf8')) ?? {};
    const extra = Object.keys(part).filter((key) => key !== 'workflows');
    if (extra.length > 0 || !Array.isArray(part.workflows)) {
      throw new BundleError(`${path.relative(repoRoot, file)} must hold only a \`workflows\` list${extra.length ? ` (found ${extra.join(', ')})` : ''}.`);
    }
    for (const workflow of part.workflows) {
      const id = workflow?.workflowId;
      if (owner.has(id)) throw new BundleError(`workflowId "${id}" is used by ${owner.get(id)} and ${path.relative(repoRoot, file)}; nothing was written.`);
      owner.set(id, path.relative(repoRoot, file));
      workflows.push(workflow);
    }
  }
  const { components, ...head } = root;
  return { ...head, workflows, ...(components ? { components } : {}) };
}

/** Bundle, check and write every generated form. Returns the paths written. */
export async function bundleAll({ spec, asyncapi, out }) {
  const specDir = path.dirname(spec);
  const roots = [spec, ...(asyncapi ? [asyncapi] : [])];

  const openapi = await bundleDescription(spec);
  const async = asyncapi ? await bundleDescription(asyncapi) : null;

  // One namespace for both descriptions: they share the event schema files.
  const collisions = findBasenameCollisions([...openapi.files, ...(async?.files ?? [])], specDir, roots);
  const renamed = [
    ...findRenamedComponents(openapi.document).map((c) => `Redocly renamed a clashing component to ${c} (OpenAPI bundle)`),
    ...(async ? findRenamedComponents(async.document).map((c) => `Redocly renamed a clashing component to ${c} (AsyncAPI bundle)`) : []),
    ...openapi.renames,
    ...(async?.renames ?? []),
  ];
  if (collisions.length > 0 || renamed.length > 0) {
    throw new BundleError(
      'Component name collision (a component is named by its file\'s basename, which must be unique across spec/):\n' +
        [...collisions, ...renamed].map((m) => `  - ${m}`).join('\n') +
        '\nRename one of the files; nothing was written.',
    );
  }

  const bundled = sortComponents(openapi.document);
  const { document: dereferenced, cycles } = dereferenceDocument(bundled);
  for (const cycle of cycles) console.warn(`note: recursive reference kept as $ref in the dereferenced form: ${cycle}`);

  const outputs = {
    'openapi.yaml': toYaml(bundled),
    'openapi.json': toJson(bundled),
    'openapi.dereferenced.json': toJson(dereferenced),
  };
  if (async) {
    const asyncBundled = sortComponents(async.document);
    outputs['asyncapi.yaml'] = toYaml(asyncBundled);
    outputs['asyncapi.json'] = toJson(asyncBundled);
  }
  // The mock's control surface: its own small description, never mixed into the service's.
  const control = path.join(path.dirname(spec), 'mock-control.yaml');
  if (existsSync(control)) {
    const controlDocument = parseYaml(readFileSync(control, 'utf8'));
    outputs['mock-control.json'] = toJson(controlDocument);
    // What the MSW handlers carry into a browser: every schema, example, rule and test value,
    // without the prose (about two fifths of the bundle), which the simulator never reads.
    const { 'x-interface-specification': _parts, 'x-tagGroups': _groups, tags: _tags, ...forMock } = bundled;
    outputs['mock.json'] = `${JSON.stringify({ openapi: withoutProse(forMock), control: withoutProse(controlDocument) })}\n`;
  }
  // The workflows (Arazzo): their source descriptions are the files written beside them.
  const workflowsDir = path.join(path.dirname(spec), 'workflows');
  if (existsSync(workflowsDir)) {
    const workflows = bundleWorkflows(workflowsDir);
    outputs['workflows.arazzo.yaml'] = toYaml(workflows);
    outputs['workflows.arazzo.json'] = toJson(workflows);
  }
  return writeOutputs(out, outputs);
}

/** Writes each named text of `outputs` into the folder `out` and returns the files written. */
export function writeOutputs(out, outputs) {
  mkdirSync(out, { recursive: true });
  return Object.entries(outputs).map(([name, text]) => {
    const file = path.join(out, name);
    writeFileSync(file, text);
    return file;
  });
}

/**
 * A writer of generated/ (bundle, generate) run as a script (`meta`: its import.meta): its usage
 * for --help, else each file it wrote named; an error of the `known` kinds is one line, `name: ...`.
 */
export function runWriter(meta, { name, usage, parse, write, known }) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(meta.url)) return;
  const main = async () => {
    const options = parse(process.argv.slice(2));
    if (options.help) return void process.stdout.write(usage);
    for (const file of await write(options)) console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
  };
  main().catch((error) => {
    if (known.some((kind) => error instanceof kind)) console.error(`${name}: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  });
}

runWriter(import.meta, { name: 'bundle', usage: USAGE, parse: parseCommandLine, write: bundleAll, known: [BundleError] });
