// Response bodies validated with ajv (JSON Schema 2020-12, formats on) against the schemas of the
// bundled description, with its components registered so `#/components/...` references resolve.
// Unknown extra fields are allowed because the description keeps its schemas open.
import _Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import type { Json } from './description.js';
import { documentedOnly } from './inferred.js';

// CommonJS modules with a `default` export: under NodeNext the default import is the module object,
// whose runtime value is the class or function itself.
const Ajv2020 = _Ajv2020 as unknown as typeof _Ajv2020.default;
const addFormats = _addFormats as unknown as typeof _addFormats.default;

const DOCUMENT_ID = 'openapi.json';

function makeAjv(document: Json): InstanceType<typeof Ajv2020> {
  // strict: false because OpenAPI schemas carry `example`, `x-*` and other annotations.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

export interface ValidationResult {
  /** Errors against the description as written. */
  errors: string[];
  /** Errors that remain when inferred parts are relaxed: these break documented parts. */
  documentedErrors: string[];
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}${e.keyword === 'enum' ? ` ${JSON.stringify(e.params)}` : ''}`);
}

export class ResponseValidator {
  private readonly strict: InstanceType<typeof Ajv2020>;
  private readonly relaxed: InstanceType<typeof Ajv2020>;
  private readonly cache = new Map<string, [ValidateFunction, ValidateFunction]>();

  constructor(document: Json) {
    this.strict = makeAjv(document);
    this.relaxed = makeAjv(documentedOnly(document));
  }

  /** Validates `value` against the schema at `pointer` (e.g. `#/paths/.../schema`). */
  validate(pointer: string, value: unknown): ValidationResult {
    let pair = this.cache.get(pointer);
    if (!pair) {
      const ref = { $ref: `${DOCUMENT_ID}${pointer}` };
      pair = [this.strict.compile(ref), this.relaxed.compile(ref)];
      this.cache.set(pointer, pair);
    }
    const [strict, relaxed] = pair;
    const errors = strict(value) ? [] : describe(strict.errors);
    const documentedErrors = errors.length === 0 || relaxed(value) ? [] : describe(relaxed.errors);
    return { errors, documentedErrors };
  }
}
