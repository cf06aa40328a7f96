// The validators and converters of test/validators.test.ts that are not in the main install:
// imported here so that they resolve from this folder's own install (scripts/tools-install.mjs
// compat), as the generators of ./generators.ts do.
import { createRequire } from 'node:module';
import SwaggerParser from '@apidevtools/swagger-parser';

export { default as SwaggerParser } from '@apidevtools/swagger-parser';
export { Validator as OpenApiSchemaValidator } from '@seriousme/openapi-schema-validator';
export { default as PostmanConverter } from 'openapi-to-postmanv2';

/** The swagger-parser orval runs at start-up (its own dependency, whichever version that is). */
export function orvalSwaggerParser(): typeof SwaggerParser {
  const fromOrval = createRequire(createRequire(import.meta.url).resolve('orval'));
  return fromOrval('@apidevtools/swagger-parser') as typeof SwaggerParser;
}
