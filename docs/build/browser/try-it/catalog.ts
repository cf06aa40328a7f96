// The operation catalog the docs build writes into the try-it bundle (docs/build/try-it-catalog.mjs).
import type { SentRequest } from './snippets.js';

export interface CatalogParam {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  example?: unknown;
  description: string;
}
export interface CatalogExample {
  name: string;
  summary: string;
  value: unknown;
}
export interface CatalogAnswer {
  status: number;
  name: string;
  summary: string;
}
export interface CatalogTestValue {
  name: string;
  field: string;
  value: string;
  status: number | null;
  example: string | null;
  description: string;
}
export interface CatalogOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  tag: string;
  route: string;
  public: boolean;
  params: CatalogParam[];
  body: { mediaType: string; required: boolean; examples: CatalogExample[] } | null;
  answers: CatalogAnswer[];
  testValues: CatalogTestValue[];
  /** The request of the reference's samples (its first example), without its server. */
  sample: Pick<SentRequest, 'path' | 'query' | 'header' | 'body' | 'withKey' | 'comments'>;
}
export interface Catalog {
  mockUrl: string;
  /** The servers' URLs in the reference's order: the local mock first, whose URL the built samples name. */
  servers: string[];
  operations: CatalogOperation[];
  /** The ids of the mock's demo account (what a fresh key opens), read from its seed at build time. */
  demoIds: string[];
}

declare const __TRY_IT_CATALOG__: Catalog;
export const catalog: Catalog = __TRY_IT_CATALOG__;

export function operationById(id: string): CatalogOperation | undefined {
  return catalog.operations.find((op) => op.id === id);
}

/** The operation a reference route (`#/<tag>/<operationid>`, or a deep link under it: `#/<tag>/<operationid>#...`) shows, if any. */
export function operationByRoute(hash: string): CatalogOperation | undefined {
  const route = `reference.html${hash.replace(/(.)#.*$/, '$1').replace(/\/$/, '')}`;
  return catalog.operations.find((op) => op.route === route);
}
