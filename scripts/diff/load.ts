// Reads a release of the contract: a bundled JSON file, a directory holding `openapi.json` and/or
// `asyncapi.json` (like generated/ or generated/baseline/), or a git ref whose generated/ is read
// with `git show <ref>:generated/<file>`.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../src/cli/usage-error.js';
import type { ContractDocuments } from './documents.js';
import type { Json } from './resolve.js';

/** Read beside the descriptions when present: the workflows, and the mock control surface they name. */
const COMPANIONS = [
  ['workflows', 'workflows.arazzo.json'],
  ['mockControl', 'mock-control.json'],
] as const;

export interface LoadedRelease extends ContractDocuments {
  /** What was read, for the report: a path or `git:<ref>`. */
  source: string;
  /** `info.version` of the OpenAPI document (or the AsyncAPI one). */
  version?: string;
}

function parseJson(text: string, where: string): Json {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}

function kindOf(doc: Json, where: string): 'openapi' | 'asyncapi' {
  if (doc && typeof doc.openapi === 'string') return 'openapi';
  if (doc && typeof doc.asyncapi === 'string') return 'asyncapi';
  throw new UsageError(`${where} is neither an OpenAPI nor an AsyncAPI document (no \`openapi\` or \`asyncapi\` key)`);
}

function finish(docs: ContractDocuments, source: string): LoadedRelease {
  if (!docs.openapi && !docs.asyncapi) throw new UsageError(`${source} holds neither openapi.json nor asyncapi.json`);
  return { ...docs, source, version: docs.openapi?.info?.version ?? docs.asyncapi?.info?.version };
}

function gitShow(ref: string, file: string, cwd: string): string | undefined {
  try {
    return execFileSync('git', ['show', `${ref}:${file}`], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

function isGitRef(ref: string, cwd: string): boolean {
  if (ref.startsWith('-')) return false;
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Loads a release from a file, a directory or a git ref (tried in that order). */
export function loadRelease(spec: string, cwd = process.cwd()): LoadedRelease {
  if (!spec) throw new UsageError('no release given');
  const full = path.resolve(cwd, spec);
  if (existsSync(full)) {
    if (statSync(full).isDirectory()) {
      const docs: ContractDocuments = {};
      for (const kind of ['openapi', 'asyncapi'] as const) {
        const file = path.join(full, `${kind}.json`);
        if (existsSync(file)) docs[kind] = parseJson(readFileSync(file, 'utf8'), path.relative(cwd, file) || file);
      }
      for (const [kind, name] of COMPANIONS) {
        const file = path.join(full, name);
        if (existsSync(file)) docs[kind] = parseJson(readFileSync(file, 'utf8'), path.relative(cwd, file) || file);
      }
      return finish(docs, spec);
    }
    const doc = parseJson(readFileSync(full, 'utf8'), spec);
    return finish({ [kindOf(doc, spec)]: doc }, spec);
  }
  if (isGitRef(spec, cwd)) {
    const docs: ContractDocuments = {};
    for (const kind of ['openapi', 'asyncapi'] as const) {
      const text = gitShow(spec, `generated/${kind}.json`, cwd);
      if (text !== undefined) docs[kind] = parseJson(text, `${spec}:generated/${kind}.json`);
    }
    for (const [kind, name] of COMPANIONS) {
      const text = gitShow(spec, `generated/${name}`, cwd);
      if (text !== undefined) docs[kind] = parseJson(text, `${spec}:generated/${name}`);
    }
    if (!docs.openapi && !docs.asyncapi) throw new UsageError(`git ref ${spec} has no generated/openapi.json or generated/asyncapi.json`);
    return finish(docs, `git:${spec}`);
  }
  throw new UsageError(`'${spec}' is neither a file, a directory nor a git ref (in ${cwd})`);
}
