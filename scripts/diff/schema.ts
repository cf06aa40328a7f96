// Direction-aware comparison of two JSON Schemas (OpenAPI 3.1 / AsyncAPI 3.0 payloads, 2020-12).
//
// One principle, applied per keyword: on the request side (the client writes the value) a change
// that NARROWS what may be sent breaks clients; on the response and event side (the service writes
// it, the client reads it) a change that WIDENS what may arrive breaks consumers. On top of it, the
// consumer-facing conventions of the best public diff tools: a removed (or renamed) field breaks
// both sides, an added optional field breaks neither (tolerant reader), and a field that stops
// being required in a response breaks consumers that relied on it. Schemas are compared in the
// normal form of ./normal-form.ts (nullability, open enums, allOf, forbidden fields); union and
// conditional branches are compared together with the schema around them; `not` inverts the value
// set, so narrowing and widening swap inside it.

import { ChangeSink, type Direction, type NewChange } from './changes.js';
import { ANNOTATIONS, type Normal, type ValueSet, normalize, oneOfLeaves, shapeOf, whole } from './normal-form.js';
import { type Document, type Json, type Located, childPointer, isObject, refName, sameJson } from './resolve.js';

export interface SchemaContext {
  before: Document;
  after: Document;
  sink: ChangeSink;
  direction: Direction;
  /** The operation/event and the part of it being compared, e.g. `GET /api/v1/numbers · response 200`. */
  affects: string;
  /** The field path inside the body, for messages (`data.media[].url`); '' for the value itself. */
  field: string;
  /** Inside `not`: narrowing and widening swap. */
  inverted?: boolean;
  /** Set when an enclosing part (operation, response, property, ...) is `x-inferred`. */
  inferred?: boolean;
  /** Pairs being compared on the current path, so recursive schemas terminate. */
  stack?: Set<string>;
}

/** How a change moves the set of values a schema allows. */
type Effect = 'narrowed' | 'widened' | 'changed' | 'removed' | 'harmless' | 'documentation';

function classify(ctx: SchemaContext, effect: Effect): 'breaking' | 'non-breaking' | 'documentation' {
  const clientWrites = (ctx.direction === 'request') !== Boolean(ctx.inverted);
  switch (effect) {
    case 'narrowed':
      return clientWrites ? 'breaking' : 'non-breaking';
    case 'widened':
      return clientWrites ? 'non-breaking' : 'breaking';
    case 'changed':
    case 'removed':
      return 'breaking';
    case 'harmless':
      return 'non-breaking';
    case 'documentation':
      return 'documentation';
  }
}

interface Emit {
  effect: Effect;
  code: string;
  message: string;
  pointer: string;
  in?: 'current' | 'previous';
  inferred?: boolean;
  before?: unknown;
  after?: unknown;
}

/**
 * Shared schemas are reached from many operations; each pair of schemas is compared once per
 * direction and its changes replayed for the next operation that reaches it (with that
 * operation in `affects`). One cache per comparison run, keyed by its sink.
 */
interface SchemaCache {
  done: Map<string, NewChange[]>;
  recording: NewChange[][];
}
const caches = new WeakMap<ChangeSink, SchemaCache>();

function cacheOf(sink: ChangeSink): SchemaCache {
  let cache = caches.get(sink);
  if (!cache) caches.set(sink, (cache = { done: new Map(), recording: [] }));
  return cache;
}

function record(ctx: SchemaContext, change: NewChange): void {
  for (const list of cacheOf(ctx.sink).recording) list.push(change);
  ctx.sink.add(change, ctx.affects);
}

function emit(ctx: SchemaContext, e: Emit): void {
  record(ctx, {
    classification: classify(ctx, e.effect),
    code: e.code,
    message: e.message,
    pointer: e.pointer,
    in: e.in,
    direction: ctx.direction,
    inferred: Boolean(ctx.inferred || e.inferred),
    before: e.before,
    after: e.after,
  });
}

const side = (ctx: SchemaContext): string => ctx.direction;
const subject = (ctx: SchemaContext): string => (ctx.field ? `field \`${ctx.field}\`` : `the ${side(ctx)} value`);
const show = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
const showList = (values: unknown[]): string => values.map(show).join(', ');

// ---------------------------------------------------------------------------------------------
// Comparison

const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains'];
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains'];
const SHAPE_TEXT = ['pattern', 'format', 'contentMediaType', 'contentEncoding'];

const HANDLED = new Set([
  ...UPPER_BOUNDS, ...LOWER_BOUNDS, ...SHAPE_TEXT, ...ANNOTATIONS,
  'type', 'nullable', 'items', 'prefixItems', 'additionalProperties', 'not', 'if', 'then', 'else',
  'multipleOf', 'uniqueItems', 'default', 'deprecated', 'readOnly', 'writeOnly', 'discriminator',
  'x-inferred',
]);

/** Compares two schemas found at the same place of the previous and the current document. */
export function compareSchemas(beforeLoc: Located, afterLoc: Located, ctx: SchemaContext): void {
  const b = normalize(ctx.before, beforeLoc);
  const a = normalize(ctx.after, afterLoc);
  // x-inferred is lexical (see Located.inferred): following a `$ref` leaves the enclosing marker
  // behind, so a documented component used by an inferred response stays documented. Which
  // schema an inferred place references is itself inferred, though: when the reference changed,
  // the marker stays.
  const ref = (l: Located) => (isObject(l.node) && typeof l.node.$ref === 'string' ? l.node.$ref : undefined);
  const sameReference = ref(beforeLoc) !== undefined && ref(beforeLoc) === ref(afterLoc);
  const inherited = sameReference ? false : ctx.inferred;
  const inferred = Boolean(inherited || b.loc.inferred || a.loc.inferred);
  // Identify the input, not its normal form: a nullable wrapper, or a `$ref` with sibling keywords,
  // resolves to the pointer of the schema it wraps but differs from it.
  const id = (doc: Document, loc: Located): string => {
    if (loc.merge) return loc.merge.map((m) => id(doc, m)).join('+');
    const refWithSiblings = isObject(loc.node) && typeof loc.node.$ref === 'string' && Object.keys(loc.node).length > 1;
    return (refWithSiblings ? `${loc.ptr}(ref)` : doc.resolve(loc).ptr) + (loc.core ? '(core)' : '');
  };
  const key = `${id(ctx.before, beforeLoc)}|${id(ctx.after, afterLoc)}|${ctx.direction}|${ctx.inverted ? 1 : 0}|${inferred ? 1 : 0}`;
  const stack = ctx.stack ?? new Set<string>();
  // A cycle (recursive schema), or nesting deeper than any real payload: stop here.
  if (stack.has(key) || stack.size > 64) return;
  const cache = cacheOf(ctx.sink);
  const known = cache.done.get(key);
  if (known) {
    for (const change of known) record(ctx, change);
    return;
  }
  const recorded: NewChange[] = [];
  cache.recording.push(recorded);
  stack.add(key);
  const here: SchemaContext = { ...ctx, stack, inferred };
  const at = a.loc.ptr;

  compareInferredMarker(b, a, here);
  compareTypes(b, a, here);
  compareValues(b, a, here);
  compareBounds(b, a, here);
  compareKeywords(b, a, here);
  // Two `oneOf` unions are compared leaf by leaf, each leaf with the fields around the union
  // (./normal-form.ts `oneOfLeaves`), so the fields are compared there, not here.
  if (!(b.variants.oneOf && a.variants.oneOf)) compareProperties(b, a, here);
  compareItems(b, a, here);
  compareVariants(b, a, here);
  compareNested(b, a, here);
  compareAnnotations(b, a, here, at);
  stack.delete(key);
  cache.recording.pop();
  cache.done.set(key, recorded);
}

function compareInferredMarker(b: Normal, a: Normal, ctx: SchemaContext): void {
  const was = b.keywords['x-inferred'] === true;
  const is = a.keywords['x-inferred'] === true;
  if (was === is) return;
  emit(ctx, {
    effect: 'documentation',
    code: 'inferred-marker-changed',
    message: is ? `${subject(ctx)} is now marked inferred (x-inferred)` : `${subject(ctx)} is now documented (no longer x-inferred)`,
    pointer: a.loc.ptr,
  });
}

/** `t` is allowed by `set` (an integer is a number). */
const covers = (set: Set<string>, t: string): boolean => set.has(t) || (t === 'integer' && set.has('number'));

function compareTypes(b: Normal, a: Normal, ctx: SchemaContext): void {
  const pointer = childPointer(a.loc.ptr, 'type');
  const describe = (n: Normal) => (n.types ? [...n.types].sort().join(' | ') || 'null' : 'any type');
  if (b.types || a.types) {
    let effect: Effect | undefined;
    if (!b.types) effect = 'narrowed';
    else if (!a.types) effect = 'widened';
    else {
      const added = [...a.types].filter((t) => !covers(b.types!, t));
      const removed = [...b.types].filter((t) => !covers(a.types!, t));
      effect = added.length && removed.length ? 'changed' : added.length ? 'widened' : removed.length ? 'narrowed' : undefined;
    }
    if (effect) {
      emit(ctx, {
        effect,
        code: effect === 'changed' ? 'type-changed' : effect === 'widened' ? 'type-widened' : 'type-narrowed',
        message: `${subject(ctx)}: type ${effect === 'changed' ? 'changed' : effect} from ${describe(b)} to ${describe(a)}`,
        pointer,
        before: describe(b),
        after: describe(a),
      });
    }
  }
  // With no type at all, null is already allowed: nullability only changes between typed schemas.
  if (b.types && a.types && b.nullable !== a.nullable) {
    emit(ctx, {
      effect: a.nullable ? 'widened' : 'narrowed',
      code: a.nullable ? 'became-nullable' : 'no-longer-nullable',
      message: a.nullable ? `${subject(ctx)} may now be null` : `${subject(ctx)} may no longer be null`,
      pointer,
    });
  }
}

function compareValues(b: Normal, a: Normal, ctx: SchemaContext): void {
  const bv = b.values;
  const av = a.values;
  if (!bv && !av) return;
  if (!bv || !av) {
    const set = (bv ?? av)!;
    // An open value list documents values without restricting them.
    emit(ctx, {
      effect: set.open ? 'documentation' : bv ? 'widened' : 'narrowed',
      code: bv ? 'enum-removed' : 'enum-added',
      message: `${subject(ctx)}: ${set.open ? 'documented values' : 'the closed list of values'} ${bv ? 'removed' : 'added'} (${showList(set.list)})`,
      pointer: bv ? bv.pointer : av!.pointer,
      in: bv ? 'previous' : 'current',
    });
    return;
  }
  const has = (list: Json[], v: Json) => list.some((x) => sameJson(x, v));
  const added = av.list.filter((v) => !has(bv.list, v));
  const removed = bv.list.filter((v) => !has(av.list, v));
  if (!bv.open && av.open) {
    emit(ctx, { effect: 'widened', code: 'enum-opened', message: `${subject(ctx)}: the value list is now open (any other value may occur)`, pointer: av.pointer });
  } else if (bv.open && !av.open) {
    emit(ctx, { effect: 'narrowed', code: 'enum-closed', message: `${subject(ctx)}: the value list is now closed (only the listed values)`, pointer: av.pointer });
  }
  const inferredValue = (set: ValueSet, v: Json) => has(set.inferred ?? [], v);
  for (const value of added) {
    const inferred = inferredValue(av, value);
    if (av.open) {
      emit(ctx, {
        effect: 'harmless',
        code: 'open-enum-value-added',
        message: `${subject(ctx)}: documented value ${show(value)} added to an open value list (other values were already allowed)`,
        pointer: av.pointer,
        after: value,
        inferred,
      });
    } else {
      emit(ctx, {
        effect: 'widened',
        code: 'enum-value-added',
        message: `${subject(ctx)}: value ${show(value)} added to a closed enum`,
        pointer: av.pointer,
        after: value,
        inferred,
      });
    }
  }
  for (const value of removed) {
    const inferred = inferredValue(bv, value);
    if (av.open) {
      // Still allowed by the catch-all, but no longer documented: a client that sends it relies on
      // a meaning the contract no longer gives; a consumer just sees it less.
      emit(ctx, {
        effect: ctx.direction === 'request' ? 'changed' : 'harmless',
        code: 'open-enum-value-removed',
        message: `${subject(ctx)}: documented value ${show(value)} removed from an open value list`,
        pointer: bv.pointer,
        in: 'previous',
        before: value,
        inferred,
      });
    } else {
      emit(ctx, {
        effect: 'narrowed',
        code: 'enum-value-removed',
        message: `${subject(ctx)}: value ${show(value)} removed from the enum`,
        pointer: bv.pointer,
        in: 'previous',
        before: value,
        inferred,
      });
    }
  }
}

function compareBounds(b: Normal, a: Normal, ctx: SchemaContext): void {
  const bound = (keyword: string, upper: boolean) => {
    const was = b.keywords[keyword];
    const is = a.keywords[keyword];
    if (sameJson(was, is) || (typeof was !== 'number' && was !== undefined) || (typeof is !== 'number' && is !== undefined)) return;
    let effect: Effect;
    let verb: string;
    if (was === undefined) [effect, verb] = ['narrowed', `added (${is})`];
    else if (is === undefined) [effect, verb] = ['widened', `removed (was ${was})`];
    else {
      const tighter = upper ? is < was : is > was;
      [effect, verb] = [tighter ? 'narrowed' : 'widened', `${tighter ? 'tightened' : 'loosened'} from ${was} to ${is}`];
    }
    emit(ctx, {
      effect,
      code: effect === 'narrowed' ? 'constraint-tightened' : 'constraint-loosened',
      message: `${subject(ctx)}: \`${keyword}\` ${verb}`,
      pointer: childPointer(is === undefined ? b.loc.ptr : a.loc.ptr, keyword),
      in: is === undefined ? 'previous' : 'current',
      before: was,
      after: is,
    });
  };
  for (const k of UPPER_BOUNDS) bound(k, true);
  for (const k of LOWER_BOUNDS) bound(k, false);
}

function compareKeywords(b: Normal, a: Normal, ctx: SchemaContext): void {
  const bk = b.keywords;
  const ak = a.keywords;
  const pointer = (k: string) => childPointer(k in ak ? a.loc.ptr : b.loc.ptr, k);
  const inSide = (k: string): 'current' | 'previous' => (k in ak ? 'current' : 'previous');

  for (const k of SHAPE_TEXT) {
    if (sameJson(bk[k], ak[k])) continue;
    const effect: Effect = bk[k] === undefined ? 'narrowed' : ak[k] === undefined ? 'widened' : 'changed';
    emit(ctx, {
      effect,
      code: effect === 'changed' ? `${k}-changed` : effect === 'narrowed' ? 'constraint-tightened' : 'constraint-loosened',
      message: `${subject(ctx)}: \`${k}\` ${effect === 'changed' ? `changed from ${show(bk[k])} to ${show(ak[k])}` : effect === 'narrowed' ? `added (${show(ak[k])})` : `removed (was ${show(bk[k])})`}`,
      pointer: pointer(k),
      in: inSide(k),
      before: bk[k],
      after: ak[k],
    });
  }

  if (!sameJson(bk.multipleOf, ak.multipleOf)) {
    const was = bk.multipleOf;
    const is = ak.multipleOf;
    const effect: Effect =
      was === undefined ? 'narrowed' : is === undefined ? 'widened' : Number.isInteger(is / was) ? 'narrowed' : Number.isInteger(was / is) ? 'widened' : 'changed';
    emit(ctx, { effect, code: effect === 'narrowed' ? 'constraint-tightened' : effect === 'widened' ? 'constraint-loosened' : 'multipleOf-changed', message: `${subject(ctx)}: \`multipleOf\` ${show(was)} → ${show(is)}`, pointer: pointer('multipleOf'), in: inSide('multipleOf') });
  }
  if (Boolean(bk.uniqueItems) !== Boolean(ak.uniqueItems)) {
    const effect: Effect = ak.uniqueItems ? 'narrowed' : 'widened';
    emit(ctx, { effect, code: ak.uniqueItems ? 'constraint-tightened' : 'constraint-loosened', message: `${subject(ctx)}: items ${ak.uniqueItems ? 'must now be unique' : 'no longer need to be unique'}`, pointer: pointer('uniqueItems'), in: inSide('uniqueItems') });
  }
  if (!sameJson(bk.default, ak.default)) {
    // A client that omits the value gets the default: changing it changes what that client asks for.
    const changed = bk.default !== undefined && ak.default !== undefined;
    emit(ctx, {
      effect: changed && ctx.direction === 'request' ? 'changed' : 'documentation',
      code: 'default-changed',
      message: `${subject(ctx)}: default ${bk.default === undefined ? `added (${show(ak.default)})` : ak.default === undefined ? `removed (was ${show(bk.default)})` : `changed from ${show(bk.default)} to ${show(ak.default)}`}`,
      pointer: pointer('default'),
      in: inSide('default'),
      before: bk.default,
      after: ak.default,
    });
  }
  if (Boolean(bk.deprecated) !== Boolean(ak.deprecated)) {
    emit(ctx, {
      effect: ak.deprecated ? 'harmless' : 'documentation',
      code: ak.deprecated ? 'deprecated' : 'undeprecated',
      message: `${subject(ctx)} is ${ak.deprecated ? 'now deprecated: plan to stop using it' : 'no longer deprecated'}`,
      pointer: pointer('deprecated'),
      in: inSide('deprecated'),
    });
  }
  for (const k of ['readOnly', 'writeOnly'] as const) {
    if (Boolean(bk[k]) === Boolean(ak[k])) continue;
    // readOnly: never sent by clients; writeOnly: never returned. Turning either on removes the
    // field from one side of the exchange.
    const removesFromThisSide = ak[k] && ((k === 'readOnly' && ctx.direction === 'request') || (k === 'writeOnly' && ctx.direction !== 'request'));
    emit(ctx, { effect: removesFromThisSide ? 'removed' : 'harmless', code: `${k}-changed`, message: `${subject(ctx)}: \`${k}\` ${ak[k] ? 'set' : 'cleared'}`, pointer: pointer(k), in: inSide(k) });
  }
  if (!sameJson(bk.discriminator, ak.discriminator)) {
    const bd = isObject(bk.discriminator) ? bk.discriminator : {};
    const ad = isObject(ak.discriminator) ? ak.discriminator : {};
    const mappingOnlyGrew =
      bd.propertyName === ad.propertyName &&
      Object.entries(bd.mapping ?? {}).every(([k, v]) => sameJson((ad.mapping ?? {})[k], v));
    emit(ctx, {
      effect: mappingOnlyGrew ? 'harmless' : 'changed',
      code: 'discriminator-changed',
      message: `${subject(ctx)}: discriminator ${mappingOnlyGrew ? 'mapping extended' : 'changed'}`,
      pointer: pointer('discriminator'),
      in: inSide('discriminator'),
    });
  }
  // Keywords this differ does not model: counted as breaking so that a person looks at them.
  for (const k of new Set([...Object.keys(bk), ...Object.keys(ak)])) {
    if (HANDLED.has(k) || k.startsWith('x-') || sameJson(bk[k], ak[k])) continue;
    emit(ctx, {
      effect: 'changed',
      code: 'unclassified-keyword',
      message: `${subject(ctx)}: \`${k}\` changed; this differ does not classify it, so it counts as breaking until reviewed`,
      pointer: pointer(k),
      in: inSide(k),
    });
  }
}

const fieldPath = (ctx: SchemaContext, name: string): string => (ctx.field ? `${ctx.field}.${name}` : name);

function compareProperties(b: Normal, a: Normal, ctx: SchemaContext): void {
  for (const name of a.forbidden) {
    if (b.forbidden.has(name)) continue;
    emit(ctx, { effect: 'narrowed', code: 'property-forbidden', message: `field \`${fieldPath(ctx, name)}\` must now be absent from the ${side(ctx)}`, pointer: a.loc.ptr });
  }
  for (const name of b.forbidden) {
    if (a.forbidden.has(name)) continue;
    emit(ctx, { effect: 'widened', code: 'property-allowed', message: `field \`${fieldPath(ctx, name)}\` may now be present in the ${side(ctx)}`, pointer: a.loc.ptr });
  }
  const names = new Set([...b.properties.keys(), ...a.properties.keys(), ...b.required, ...a.required]);
  const removed = [...names].filter((n) => b.properties.has(n) && !a.properties.has(n));
  const added = [...names].filter((n) => !b.properties.has(n) && a.properties.has(n));
  const isInferred = (doc: Document, loc: Located | undefined) => Boolean(loc && (loc.inferred || doc.resolve(loc).inferred || (isObject(loc.node) && loc.node['x-inferred'] === true)));

  // A removed and an added property with the same schema in the same object: a rename.
  const renames = new Map<string, string>();
  for (const old of removed) {
    const shape = shapeOf(ctx.before, b.properties.get(old)!);
    const candidates = added.filter((n) => ![...renames.values()].includes(n) && shapeOf(ctx.after, a.properties.get(n)!) === shape);
    if (candidates.length === 1) renames.set(old, candidates[0]!);
  }
  for (const [old, now] of renames) {
    emit(ctx, {
      effect: 'removed',
      code: 'property-renamed',
      message: `field \`${fieldPath(ctx, old)}\` renamed to \`${fieldPath(ctx, now)}\` in the ${side(ctx)} (removed, and a field with the same schema added)`,
      pointer: a.properties.get(now)!.ptr,
      inferred: isInferred(ctx.before, b.properties.get(old)) || isInferred(ctx.after, a.properties.get(now)),
      before: old,
      after: now,
    });
  }

  for (const name of removed) {
    if (renames.has(name)) continue;
    emit(ctx, {
      effect: 'removed',
      code: 'property-removed',
      message:
        ctx.direction === 'request'
          ? `field \`${fieldPath(ctx, name)}\` removed from the request: clients that send it lose its effect`
          : `field \`${fieldPath(ctx, name)}\` removed from the ${side(ctx)}: consumers that read it break`,
      pointer: b.properties.get(name)!.ptr,
      in: 'previous',
      inferred: isInferred(ctx.before, b.properties.get(name)),
    });
  }
  for (const name of added) {
    if ([...renames.values()].includes(name)) continue;
    const required = a.required.has(name);
    const clientWrites = ctx.direction === 'request';
    emit(ctx, {
      effect: clientWrites && required ? 'changed' : 'harmless',
      code: clientWrites && required ? 'required-property-added' : 'property-added',
      message: `${required ? 'required' : 'optional'} field \`${fieldPath(ctx, name)}\` added to the ${side(ctx)}`,
      pointer: a.properties.get(name)!.ptr,
      inferred: isInferred(ctx.after, a.properties.get(name)),
    });
  }

  for (const name of names) {
    const bp = b.properties.get(name);
    const ap = a.properties.get(name);
    const inferred = isInferred(ctx.before, bp) || isInferred(ctx.after, ap);
    const wasRequired = b.required.has(name);
    const isRequired = a.required.has(name);
    if (wasRequired !== isRequired && (bp || !ap) && (ap || !bp)) {
      const pointer = childPointer(isRequired ? a.loc.ptr : b.loc.ptr, 'required');
      if (isRequired) {
        emit(ctx, {
          effect: 'narrowed',
          code: 'became-required',
          message: `field \`${fieldPath(ctx, name)}\` is now required in the ${side(ctx)}`,
          pointer,
          inferred,
        });
      } else {
        emit(ctx, {
          effect: 'widened',
          code: 'became-optional',
          message:
            ctx.direction === 'request'
              ? `field \`${fieldPath(ctx, name)}\` is now optional in the request`
              : `field \`${fieldPath(ctx, name)}\` is now optional in the ${side(ctx)}: consumers that rely on its presence break`,
          pointer,
          in: 'previous',
          inferred,
        });
      }
    }
    if (bp && ap) compareSchemas(bp, ap, { ...ctx, field: fieldPath(ctx, name), inferred: ctx.inferred || inferred });
  }

  const bAdd = b.keywords.additionalProperties;
  const aAdd = a.keywords.additionalProperties;
  if (!sameJson(bAdd, aAdd)) {
    const closedBefore = bAdd === false;
    const closedAfter = aAdd === false;
    if (isObject(bAdd) && isObject(aAdd)) {
      compareSchemas({ node: bAdd, ptr: childPointer(b.loc.ptr, 'additionalProperties') }, { node: aAdd, ptr: childPointer(a.loc.ptr, 'additionalProperties') }, { ...ctx, field: `${ctx.field || ''}{*}` });
    } else if (closedAfter && !closedBefore) {
      emit(ctx, { effect: 'narrowed', code: 'additional-properties-closed', message: `${subject(ctx)}: no other fields allowed any more (additionalProperties: false)`, pointer: childPointer(a.loc.ptr, 'additionalProperties') });
    } else if (isObject(aAdd) && !isObject(bAdd) && !closedBefore) {
      emit(ctx, { effect: 'narrowed', code: 'additional-properties-restricted', message: `${subject(ctx)}: other fields must now match a schema`, pointer: childPointer(a.loc.ptr, 'additionalProperties') });
    } else {
      // Opening an object lets new fields arrive; tolerant readers ignore them, so this breaks no one.
      emit(ctx, { effect: 'harmless', code: 'additional-properties-opened', message: `${subject(ctx)}: other fields are now allowed`, pointer: childPointer(a.loc.ptr, 'additionalProperties') });
    }
  }
}

function compareItems(b: Normal, a: Normal, ctx: SchemaContext): void {
  const bi = b.keywords.items;
  const ai = a.keywords.items;
  if (isObject(bi) && isObject(ai)) {
    compareSchemas({ node: bi, ptr: childPointer(b.loc.ptr, 'items'), inferred: b.loc.inferred }, { node: ai, ptr: childPointer(a.loc.ptr, 'items'), inferred: a.loc.inferred }, { ...ctx, field: `${ctx.field}[]` });
  } else if (!sameJson(bi, ai)) {
    emit(ctx, {
      effect: bi === undefined ? 'narrowed' : ai === undefined ? 'widened' : 'changed',
      code: 'items-changed',
      message: `${subject(ctx)}: the item schema was ${bi === undefined ? 'added' : ai === undefined ? 'removed' : 'replaced'}`,
      pointer: childPointer(ai === undefined ? b.loc.ptr : a.loc.ptr, 'items'),
      in: ai === undefined ? 'previous' : 'current',
    });
  }
  const bp: Json[] = Array.isArray(b.keywords.prefixItems) ? b.keywords.prefixItems : [];
  const ap: Json[] = Array.isArray(a.keywords.prefixItems) ? a.keywords.prefixItems : [];
  for (let i = 0; i < Math.min(bp.length, ap.length); i++) {
    compareSchemas({ node: bp[i], ptr: childPointer(b.loc.ptr, 'prefixItems', i) }, { node: ap[i], ptr: childPointer(a.loc.ptr, 'prefixItems', i) }, { ...ctx, field: `${ctx.field}[${i}]` });
  }
  if (bp.length !== ap.length) {
    emit(ctx, { effect: 'changed', code: 'prefix-items-changed', message: `${subject(ctx)}: the number of positional items changed from ${bp.length} to ${ap.length}`, pointer: childPointer(a.loc.ptr, 'prefixItems') });
  }
}

/** How a union branch is recognised across releases: its component name, title, or `type` const. */
function variantKey(doc: Document, loc: Located, index: number): string {
  const name = refName(loc.node);
  if (name) return name;
  const r = normalize(doc, loc);
  const title = doc.resolve(loc).node?.title;
  if (typeof title === 'string') return title;
  const typeProp = r.properties.get('type');
  const tag = typeProp ? normalize(doc, typeProp).values : null;
  if (tag && !tag.open && tag.list.length === 1) return `type=${String(tag.list[0])}`;
  return `#${index}`;
}

/**
 * A union with a branch defined by exclusion (`not`) already accepts whatever a new branch would
 * describe (this contract's `AnyEvent` ends with `UnknownEvent`, "any other type"): adding a
 * documented branch narrows the catch-all instead of widening the union.
 */
function hasExclusionBranch(doc: Document, branches: Located[]): boolean {
  return branches.some((branch) => {
    const n = normalize(doc, branch);
    if ('not' in n.keywords) return true;
    return [...n.properties.values()].some((p) => 'not' in normalize(doc, p).keywords);
  });
}

/**
 * Branches whose key changed (a title added, say) are still the same branch when, together with
 * the schema around them, they have the same shape or the same required fields: rename their key.
 */
function pairUnmatched(ctx: SchemaContext, b: Normal, a: Normal, bKeys: Map<string, Located>, aKeys: Map<string, Located>): void {
  const unmatched = (from: Map<string, Located>, other: Map<string, Located>) => [...from.keys()].filter((k) => !other.has(k));
  const required = (doc: Document, n: Normal, loc: Located) => [...normalize(doc, whole(n, loc)).required].sort().join(',');
  const shape = (doc: Document, loc: Located) => shapeOf(doc, loc);
  for (const signature of [shape, null] as const) {
    for (const bk of unmatched(bKeys, aKeys)) {
      const bl = bKeys.get(bk)!;
      const want = signature ? signature(ctx.before, bl) : required(ctx.before, b, bl);
      const candidates = unmatched(aKeys, bKeys).filter((ak) => {
        const al = aKeys.get(ak)!;
        return (signature ? signature(ctx.after, al) : required(ctx.after, a, al)) === want;
      });
      if (candidates.length !== 1) continue;
      const al = aKeys.get(candidates[0]!)!;
      aKeys.delete(candidates[0]!);
      aKeys.set(bk, al);
    }
  }
}

function compareVariants(b: Normal, a: Normal, ctx: SchemaContext): void {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const bv = b.variants[keyword];
    const av = a.variants[keyword];
    if (!bv && !av) continue;
    if (!bv || !av) {
      emit(ctx, {
        effect: bv ? 'widened' : 'narrowed',
        code: bv ? 'variants-removed' : 'variants-added',
        message: `${subject(ctx)}: \`${keyword}\` ${bv ? 'removed' : 'added'}`,
        pointer: childPointer(bv ? b.loc.ptr : a.loc.ptr, keyword),
        in: bv ? 'previous' : 'current',
      });
      continue;
    }
    // A `oneOf` by its leaves: nested unions flattened, the fields around it in each leaf.
    const leaves = keyword === 'oneOf';
    const bList = leaves ? oneOfLeaves(ctx.before, b) : bv;
    const aList = leaves ? oneOfLeaves(ctx.after, a) : av;
    const bKeys = new Map(bList.map((loc, i) => [variantKey(ctx.before, loc, i), loc]));
    const aKeys = new Map(aList.map((loc, i) => [variantKey(ctx.after, loc, i), loc]));
    pairUnmatched(ctx, b, a, bKeys, aKeys);
    const open = hasExclusionBranch(ctx.before, bv);
    for (const [k, loc] of aKeys) {
      if (bKeys.has(k)) continue;
      emit(ctx, {
        effect: open ? 'harmless' : 'widened',
        code: 'variant-added',
        message: `${subject(ctx)}: \`${keyword}\` branch ${k} added${open ? ' (the union already accepted it through its catch-all branch)' : ''}`,
        pointer: loc.ptr,
        inferred: ctx.after.resolve(loc).inferred,
      });
    }
    for (const [k, loc] of bKeys) {
      if (aKeys.has(k)) continue;
      emit(ctx, {
        effect: 'narrowed',
        code: 'variant-removed',
        message: `${subject(ctx)}: \`${keyword}\` branch ${k} removed`,
        pointer: loc.ptr,
        in: 'previous',
        inferred: ctx.before.resolve(loc).inferred,
      });
    }
    for (const [k, loc] of bKeys) {
      const other = aKeys.get(k);
      if (other) compareSchemas(leaves ? loc : whole(b, loc), leaves ? other : whole(a, other), ctx);
    }
  }
}

function compareNested(b: Normal, a: Normal, ctx: SchemaContext): void {
  const sub = (n: Normal, k: string): Located | undefined =>
    isObject(n.keywords[k]) ? { node: n.keywords[k], ptr: childPointer(n.loc.ptr, k), inferred: n.loc.inferred } : undefined;
  // `not`: the value set is inverted, so narrowing and widening swap inside it.
  const bn = sub(b, 'not');
  const an = sub(a, 'not');
  if (bn && an) compareSchemas(bn, an, { ...ctx, inverted: !ctx.inverted });
  else if (bn || an) {
    emit(ctx, { effect: an ? 'narrowed' : 'widened', code: an ? 'not-added' : 'not-removed', message: `${subject(ctx)}: an exclusion (\`not\`) was ${an ? 'added' : 'removed'}`, pointer: (an ?? bn)!.ptr, in: an ? 'current' : 'previous' });
  }
  // `if` decides when `then`/`else` apply; a change to what it matches cannot be ordered, so it is
  // breaking. A rewrite that matches the same values (found by comparing the two conditions) is not.
  const bi = sub(b, 'if');
  const ai = sub(a, 'if');
  if (!sameJson(b.keywords.if, a.keywords.if)) {
    let same = false;
    if (bi && ai) {
      const scratch = new ChangeSink(ctx.sink.document);
      compareSchemas(bi, ai, { ...ctx, sink: scratch, stack: new Set(), inferred: false });
      same = scratch.list().every((c) => c.classification === 'documentation');
    }
    if (!same) emit(ctx, { effect: 'changed', code: 'condition-changed', message: `${subject(ctx)}: the condition (\`if\`) changed`, pointer: childPointer(a.loc.ptr, 'if') });
  }
  // What applies when the condition holds is the schema and its `then` together: compare those, so
  // that moving a property between the two is not a change.
  for (const k of ['then', 'else']) {
    const bs = sub(b, k);
    const as = sub(a, k);
    if (bs && as) compareSchemas(whole(b, bs), whole(a, as), ctx);
    else if (bs || as) {
      emit(ctx, { effect: as ? 'narrowed' : 'widened', code: `${k}-${as ? 'added' : 'removed'}`, message: `${subject(ctx)}: a conditional (\`${k}\`) was ${as ? 'added' : 'removed'}`, pointer: (as ?? bs)!.ptr, in: as ? 'current' : 'previous' });
    }
  }
}

function compareAnnotations(b: Normal, a: Normal, ctx: SchemaContext, at: string): void {
  // Reported where the keyword is written, not where a merged branch or wrapper brings it in.
  const own = (n: Normal): Record<string, Json> => (isObject(n.loc.node) ? n.loc.node : {});
  const bo = own(b);
  const ao = own(a);
  for (const k of new Set([...Object.keys(bo), ...Object.keys(ao)])) {
    const annotation = ANNOTATIONS.has(k) || (k.startsWith('x-') && k !== 'x-inferred');
    if (!annotation || sameJson(bo[k], ao[k])) continue;
    emit(ctx, {
      effect: 'documentation',
      code: 'annotation-changed',
      message: `${subject(ctx)}: \`${k}\` ${bo[k] === undefined ? 'added' : ao[k] === undefined ? 'removed' : 'changed'}`,
      pointer: childPointer(k in ao ? at : b.loc.ptr, k),
      in: k in ao ? 'current' : 'previous',
    });
  }
}
