// The documents of one release that the diff compares: what every comparison reads.
import type { Json } from './resolve.js';

export interface ContractDocuments {
  openapi?: Json;
  asyncapi?: Json;
  /** The workflows (workflows.arazzo.json) and the mock control surface they also name (mock-control.json). */
  workflows?: Json;
  mockControl?: Json;
}
