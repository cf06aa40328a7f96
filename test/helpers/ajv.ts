// An ajv instance (JSON Schema 2020-12, the dialect of OpenAPI 3.1) that knows the whole bundled
// description, so any schema in it can be compiled by its JSON pointer and its `$ref`s to
// `#/components/schemas/...` resolve. Formats are checked (ajv-formats, which also knows the
// OpenAPI formats int32, int64, float, double, byte, binary, password).
import _Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import type { JsonObject } from './contract.js';

// ajv and ajv-formats are CommonJS with a `default` export; under NodeNext the default import is
// the module object, whose runtime value is the class/function itself.
const Ajv2020 = _Ajv2020 as unknown as typeof _Ajv2020.default;
const addFormats = _addFormats as unknown as typeof _addFormats.default;
export type Ajv = InstanceType<typeof Ajv2020>;

/** The id under which the description is registered; schemas are addressed as `<id>#<pointer>`. */
export const CONTRACT_SCHEMA_ID = 'https://numbers-api-contract.invalid/openapi.json';

export function createContractAjv(document: JsonObject): Ajv {
  const ajv = new Ajv2020({
    allErrors: true,
    // OpenAPI adds keywords to JSON Schema (discriminator, xml, externalDocs, example, x-*); they
    // are annotations, so unknown keywords are ignored rather than refused.
    strict: false,
    validateFormats: true,
  });
  addFormats(ajv);
  const { $id: _ignored, ...rest } = document;
  ajv.addSchema({ ...rest, $id: CONTRACT_SCHEMA_ID });
  return ajv;
}

/** The compiled validator of the schema at `pointer` (e.g. `#/components/schemas/Error`). */
export function validatorAt(ajv: Ajv, pointer: string): ValidateFunction {
  const validate = ajv.getSchema(`${CONTRACT_SCHEMA_ID}${pointer}`);
  if (!validate) throw new Error(`No schema at ${pointer}`);
  return validate;
}

/** One readable line per ajv error: `/items/0/to must match pattern "^\+[1-9]..."`. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const params = error.keyword === 'additionalProperties' ? ` (${JSON.stringify(error.params)})` : '';
    return `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${params}`;
  });
}
