// diffContracts: the previous release of the contract against the current one, every change
// classified breaking / non-breaking / documentation-only (see ./schema.ts for the rules).
//
// Why not api-smart-diff (installed, 1.0.6), which the team evaluated first: it resolves `$ref`s
// and classifies OpenAPI 3.x request-side changes well, but for this contract it
//  - does not read AsyncAPI 3.0 (only `asyncapi: 2.x`; a 3.0 document falls back to a plain JSON
//    diff in which every change is "unclassified");
//  - skips OpenAPI 3.1 `webhooks` whose bodies are `$ref`s (our event deliveries): no diff at all;
//  - classifies the response side by schema inclusion, not by what consumers rely on: a removed
//    optional response field, a changed response type and a response field becoming nullable come
//    out non-breaking, and a value added to an open enum (`anyOf: [{const}, {type: string}]`)
//    breaking;
//  - knows nothing of `x-inferred`, and reports changes in its own rewritten coordinates (sibling
//    keywords wrapped into `allOf`, e.g. `.../oneOf/0/allOf/0/allOf/0/properties/type/anyOf/4`),
//    which map back neither to the document's JSON pointers nor to the markers on the way.
// Writing "only the rules it lacks" would have meant re-deriving location, direction and
// inferred status from its output for every change; a direct walk of the two bundles is smaller
// and says exactly what it does. test/versioning-api-smart-diff.test.ts keeps the evidence, so a
// future version that fixes these can be re-evaluated.

import type { RecordingFile } from '../../src/recording/recording-files-read.js';
import { compareRecordings } from './recordings.js';
import { compareAsyncApi } from './asyncapi.js';
import { type Change, type Classification, sortChanges } from './changes.js';
import { compareOpenApi } from './openapi.js';
import { compareWorkflows } from './workflows.js';
import type { Json } from './resolve.js';
import type { ContractDocuments } from './documents.js';

export type { Change, Classification, Direction } from './changes.js';
export { INFERRED_NOTE } from './changes.js';

export type { ContractDocuments } from './documents.js';

export interface DiffResult {
  changes: Change[];
  summary: {
    breaking: number;
    nonBreaking: number;
    documentation: number;
    /** Changes to `x-inferred` parts (counted as non-breaking or documentation above). */
    inferred: number;
    /** The smallest semver bump a release with these changes needs. */
    requiredBump: 'major' | 'minor' | 'patch' | 'none';
  };
  /** Documents present on one side only (not compared). */
  skipped: string[];
  /** With recordings (`--recordings`): their names, and the breaking changes that reach none of them. */
  recordings?: { names: string[]; broken: string[]; untouched: string[] };
}

export function diffContracts(previous: ContractDocuments, current: ContractDocuments, recordings?: RecordingFile[]): DiffResult {
  const changes: Change[] = [];
  const skipped: string[] = [];
  if (previous.openapi && current.openapi) changes.push(...compareOpenApi(previous.openapi, current.openapi).list());
  else if (previous.openapi || current.openapi) skipped.push(`openapi (only in the ${previous.openapi ? 'previous' : 'current'} release)`);
  if (previous.asyncapi && current.asyncapi) changes.push(...compareAsyncApi(previous.asyncapi, current.asyncapi).list());
  else if (previous.asyncapi || current.asyncapi) skipped.push(`asyncapi (only in the ${previous.asyncapi ? 'previous' : 'current'} release)`);
  // A workflow step the change breaks (an operation, parameter or field it uses, gone or changed).
  changes.push(...compareWorkflows(previous, current));
  // The recordings a change breaks (what a frontend did, recorded on the mock).
  const recorded = recordings ? compareRecordings(recordings, previous, current, changes) : undefined;
  if (recorded) changes.push(...recorded.changes);
  const count = (c: Classification) => changes.filter((x) => x.classification === c).length;
  const breaking = count('breaking');
  const nonBreaking = count('non-breaking');
  const documentation = count('documentation');
  return {
    changes: sortChanges(changes),
    summary: {
      breaking,
      nonBreaking,
      documentation,
      inferred: changes.filter((c) => c.inferred).length,
      requiredBump: breaking ? 'major' : nonBreaking ? 'minor' : documentation ? 'patch' : 'none',
    },
    skipped,
    ...(recorded ? { recordings: { names: recorded.names, broken: [...new Set(recorded.changes.map((c) => c.affects[0]!.replace(/^recording /, '')))], untouched: recorded.untouched } } : {}),
  };
}

export const breakingChanges = (result: DiffResult): Change[] => result.changes.filter((c) => c.classification === 'breaking');
