// The bundled descriptions as one JSON module, so the in-process mock needs no file system: a
// bundler (esbuild, Vite, webpack) inlines it, and Node reads it as a JSON module. It is
// generated/mock.json: the contract and the control surface as the simulator reads them, without
// their prose (descriptions, summaries), which a browser would carry for nothing.
import mock from '../../generated/mock.json' with { type: 'json' };
import type { JsonObject } from '../simulator/types.js';

/** The contract the simulator answers from (generated/openapi.json without its prose). */
export const openApiDocument = mock.openapi as unknown as JsonObject;
/** The mock's control surface (`/__mock/...`, generated/mock-control.json without its prose). */
export const mockControlDocument = mock.control as unknown as JsonObject;
