// The bundled descriptions as JSON modules, so the in-process mock needs no file system: a
// bundler (esbuild, Vite, webpack) inlines them, and Node reads them as JSON modules.
import openapi from '../../generated/openapi.json' with { type: 'json' };
import mockControl from '../../generated/mock-control.json' with { type: 'json' };
import type { JsonObject } from '../simulator/types.js';

/** generated/openapi.json: the contract the simulator answers from. */
export const openApiDocument = openapi as unknown as JsonObject;
/** generated/mock-control.json: the mock's control surface (`/__mock/...`). */
export const mockControlDocument = mockControl as unknown as JsonObject;
