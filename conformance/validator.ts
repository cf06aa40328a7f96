// Response bodies validated with ajv (JSON Schema 2020-12, formats on) against the schemas of the
// bundled description. Every component schema is registered once under its own id, so a schema
// that many responses share is compiled once; `#/components/schemas/...` references are rewritten
// to those ids. Unknown extra fields are allowed because the description keeps its schemas open.
import _Ajv2020 from 'ajv/dist/2020.js';
import { valueAt } from '../src/contract/json-pointer.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { type Json } from './description.js';
import { documentedOnly } from './inferred.js';
import { ID_PREFIX, rewriteRefs as rewriteComponentRefs } from '../src/simulator/validator.js';

// CommonJS modules with a `default` export: under NodeNext the default import is the module object,
// whose runtime value is the class or function itself.
const Ajv2020 = _Ajv2020 as unknown as typeof _Ajv2020.default;
const addFormats = _addFormats as unknown as typeof _addFormats.default;
type Ajv = InstanceType<typeof Ajv2020>;

const COMPONENT = '#/components/schemas/';
// The same registration of component schemas as the mock's validator.
const rewriteRefs = (node: Json): Json => rewriteComponentRefs(node) as Json;

class SchemaSet {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    // strict: false because OpenAPI schemas carry `example`, `x-*` and other annotations.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {})) {
      this.ajv.addSchema(rewriteRefs(schema), ID_PREFIX + name);
    }
  }

  /** A validator for a schema object of the description (e.g. a parameter's), cached by its text. */
  inline(schema: Json): ValidateFunction {
    const key = `inline:${JSON.stringify(schema)}`;
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(rewriteRefs(schema));
      this.cache.set(key, fn);
    }
    return fn;
  }

  validator(pointer: string): ValidateFunction {
    let fn = this.cache.get(pointer);
    if (!fn) {
      const schema: Json = valueAt(this.document, pointer);
      if (schema === undefined) throw new Error(`No schema at ${pointer} in the description.`);
      const ref = typeof schema?.$ref === 'string' && schema.$ref.startsWith(COMPONENT) ? ID_PREFIX + schema.$ref.slice(COMPONENT.length) : undefined;
      fn = (ref && this.ajv.getSchema(ref)) || this.ajv.compile(rewriteRefs(schema));
      this.cache.set(pointer, fn);
    }
    return fn;
  }
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
  private readonly strict: SchemaSet;
  private relaxed?: SchemaSet;

  constructor(private readonly document: Json) {
    this.strict = new SchemaSet(document);
  }

  /** True when `value` is valid against a schema object of the description (as written). */
  accepts(schema: Json, value: unknown): boolean {
    return this.strict.inline(schema)(value) === true;
  }

  /** Validates `value` against the schema at `pointer` (e.g. `#/paths/.../schema`). */
  validate(pointer: string, value: unknown): ValidationResult {
    const strict = this.strict.validator(pointer);
    if (strict(value)) return { errors: [], documentedErrors: [] };
    const errors = describe(strict.errors);
    // The documented-only copy is built the first time something fails: most runs never need it.
    this.relaxed ??= new SchemaSet(documentedOnly(this.document));
    const relaxed = this.relaxed.validator(pointer);
    return { errors, documentedErrors: relaxed(value) ? [] : describe(relaxed.errors) };
  }
}
