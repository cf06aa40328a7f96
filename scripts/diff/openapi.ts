// Compares two bundled OpenAPI 3.1 documents operation by operation: parameters, request body and
// security on the request side; responses and their headers on the response side; the 3.1
// `webhooks` (the service's deliveries) on the event side, where the receiver's answer is the
// request side. Schemas are compared by ./schema.ts.

import { ChangeSink, type Direction, type NewChange } from './changes.js';
import { compareSchemas } from './schema.js';
import { Document, type Json, type Located, childPointer, isObject, sameJson } from './resolve.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Keys that only document (never change what is sent or received). */
const DOC_KEYS = new Set(['summary', 'description', 'tags', 'externalDocs', 'examples', 'example', 'title']);

interface Ctx {
  before: Document;
  after: Document;
  sink: ChangeSink;
}

/** An operation of `paths` or `webhooks`, with the label the report shows for it. */
interface OperationRef {
  key: string;
  label: string;
  loc: Located;
  pathItem: Located;
  /** Path template parameter names, in order (they are matched by position, not by name). */
  pathParams: string[];
  webhook: boolean;
}

const templateParams = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

function operations(doc: Document): Map<string, OperationRef> {
  const out = new Map<string, OperationRef>();
  for (const section of ['paths', 'webhooks'] as const) {
    const items = doc.root[section];
    if (!isObject(items)) continue;
    for (const name of Object.keys(items)) {
      const pathItem = doc.resolve({ node: items[name], ptr: childPointer('', section, name) });
      for (const method of METHODS) {
        const op = doc.child(pathItem, method);
        if (!op || !isObject(op.node)) continue;
        const webhook = section === 'webhooks';
        // `/numbers/{id}` and `/numbers/{numberId}` are the same operation.
        const normalized = webhook ? name : name.replace(/\{[^}]+\}/g, '{}');
        out.set(`${section} ${method} ${normalized}`, {
          key: `${section} ${method} ${normalized}`,
          label: webhook ? `webhook ${name} (${method.toUpperCase()})` : `${method.toUpperCase()} ${name}`,
          loc: { ...op, inferred: Boolean(pathItem.inferred || op.node['x-inferred'] === true) },
          pathItem,
          pathParams: webhook ? [] : templateParams(name),
          webhook,
        });
      }
    }
  }
  return out;
}

function add(ctx: Ctx, change: NewChange, affects?: string): void {
  ctx.sink.add(change, affects);
}

/** Every `x-` key and documentation key that differs between two objects: documentation-only. */
function compareDocKeys(ctx: Ctx, b: Located, a: Located, affects: string, keys?: (k: string) => boolean): void {
  const bn = isObject(b.node) ? b.node : {};
  const an = isObject(a.node) ? a.node : {};
  for (const k of new Set([...Object.keys(bn), ...Object.keys(an)])) {
    const isDoc = keys ? keys(k) : DOC_KEYS.has(k) || (k.startsWith('x-') && k !== 'x-inferred');
    if (!isDoc || sameJson(bn[k], an[k])) continue;
    add(ctx, {
      classification: 'documentation',
      code: 'annotation-changed',
      message: `\`${k}\` ${bn[k] === undefined ? 'added' : an[k] === undefined ? 'removed' : 'changed'}`,
      pointer: childPointer(k in an ? a.ptr : b.ptr, k),
      in: k in an ? 'current' : 'previous',
      inferred: b.inferred || a.inferred,
    }, affects);
  }
  if (Boolean(bn['x-inferred']) !== Boolean(an['x-inferred'])) {
    add(ctx, {
      classification: 'documentation',
      code: 'inferred-marker-changed',
      message: an['x-inferred'] ? 'now marked inferred (x-inferred)' : 'now documented (no longer x-inferred)',
      pointer: childPointer(a.ptr, 'x-inferred'),
    }, affects);
  }
}

/** Compares the previous and current OpenAPI descriptions; returns every change found. */
export function compareOpenApi(beforeRoot: Json, afterRoot: Json): ChangeSink {
  const ctx: Ctx = { before: new Document(beforeRoot, 'openapi'), after: new Document(afterRoot, 'openapi'), sink: new ChangeSink('openapi') };
  compareInfo(ctx);
  compareServers(ctx);

  const bOps = operations(ctx.before);
  const aOps = operations(ctx.after);
  for (const [key, op] of bOps) {
    if (aOps.has(key)) continue;
    add(ctx, {
      classification: 'breaking',
      code: op.webhook ? 'webhook-removed' : 'operation-removed',
      message: op.webhook ? `${op.label} removed: its deliveries stop` : `operation ${op.label} removed: clients that call it break`,
      pointer: op.loc.ptr,
      in: 'previous',
      inferred: op.loc.inferred,
    }, op.label);
  }
  for (const [key, op] of aOps) {
    if (bOps.has(key)) continue;
    add(ctx, {
      classification: 'non-breaking',
      code: op.webhook ? 'webhook-added' : 'operation-added',
      message: `${op.webhook ? op.label : `operation ${op.label}`} added`,
      pointer: op.loc.ptr,
      inferred: op.loc.inferred,
    }, op.label);
  }
  for (const [key, b] of bOps) {
    const a = aOps.get(key);
    if (a) compareOperation(ctx, b, a);
  }
  compareComponents(ctx);
  compareRootDocs(ctx);
  return ctx.sink;
}

function compareInfo(ctx: Ctx): void {
  const b = ctx.before.root.info ?? {};
  const a = ctx.after.root.info ?? {};
  compareApiVersion(ctx, b, a, '/info');
  compareDocKeys(ctx, { node: b, ptr: '/info' }, { node: a, ptr: '/info' }, 'document', (k) => k !== 'x-api-version' && k !== 'version');
  if (b.version !== a.version) {
    add(ctx, { classification: 'documentation', code: 'annotation-changed', message: `\`version\` changed from ${b.version} to ${a.version}`, pointer: '/info/version' }, 'document');
  }
}

/** `info.x-api-version` (part 9): a new API version is a new interface, so any change breaks. */
export function compareApiVersion(ctx: { sink: ChangeSink }, b: Json, a: Json, ptr: string): void {
  if (b['x-api-version'] === a['x-api-version']) return;
  ctx.sink.add({
    classification: 'breaking',
    code: 'api-version-changed',
    message: `API version changed from ${b['x-api-version'] ?? '(none)'} to ${a['x-api-version'] ?? '(none)'}`,
    pointer: childPointer(ptr, 'x-api-version'),
  }, 'document');
}

function compareServers(ctx: Ctx): void {
  const list = (doc: Document): Map<string, Located> => {
    const servers = Array.isArray(doc.root.servers) ? doc.root.servers : [];
    return new Map(servers.map((s: Json, i: number) => [String(s?.url), { node: s, ptr: childPointer('', 'servers', i) }]));
  };
  const b = list(ctx.before);
  const a = list(ctx.after);
  for (const [url, loc] of b) {
    if (!a.has(url)) add(ctx, { classification: 'breaking', code: 'server-removed', message: `server ${url} removed`, pointer: loc.ptr, in: 'previous' }, 'servers');
  }
  for (const [url, loc] of a) {
    const old = b.get(url);
    if (!old) add(ctx, { classification: 'non-breaking', code: 'server-added', message: `server ${url} added`, pointer: loc.ptr }, 'servers');
    else if (!sameJson(old.node, loc.node)) {
      add(ctx, { classification: 'documentation', code: 'server-changed', message: `server ${url}: description or variables changed`, pointer: loc.ptr }, 'servers');
    }
  }
}

function compareOperation(ctx: Ctx, b: OperationRef, a: OperationRef): void {
  const label = a.label;
  const inferred = Boolean(b.loc.inferred || a.loc.inferred);
  const bo = b.loc.node;
  const ao = a.loc.node;
  // Webhooks: the service sends the request; the receiver (the consumer) answers.
  const requestDirection: Direction = a.webhook ? 'event' : 'request';
  const responseDirection: Direction = a.webhook ? 'request' : 'response';

  compareDocKeys(ctx, b.loc, a.loc, label);
  if (bo.operationId !== ao.operationId && !a.webhook) {
    add(ctx, {
      classification: 'breaking',
      code: 'operation-id-changed',
      message: `operationId changed from ${bo.operationId ?? '(none)'} to ${ao.operationId ?? '(none)'}: the generated \`operations\` type is renamed`,
      pointer: childPointer(a.loc.ptr, 'operationId'),
      inferred,
    }, label);
  }
  if (Boolean(bo.deprecated) !== Boolean(ao.deprecated)) {
    add(ctx, {
      classification: ao.deprecated ? 'non-breaking' : 'documentation',
      code: ao.deprecated ? 'operation-deprecated' : 'operation-undeprecated',
      message: ao.deprecated ? `operation ${label} deprecated: plan to move off it` : `operation ${label} no longer deprecated`,
      pointer: childPointer(a.loc.ptr, 'deprecated'),
    }, label);
  }
  if (!a.webhook) compareSecurity(ctx, b, a, label, inferred);
  compareParameters(ctx, b, a, label, requestDirection, inferred);
  compareRequestBody(ctx, b, a, label, requestDirection, inferred);
  compareResponses(ctx, b, a, label, responseDirection, inferred);
}

const securityOf = (doc: Document, op: OperationRef): Json[] =>
  (Array.isArray(op.loc.node.security) ? op.loc.node.security : Array.isArray(doc.root.security) ? doc.root.security : []) as Json[];

function compareSecurity(ctx: Ctx, b: OperationRef, a: OperationRef, label: string, inferred: boolean): void {
  const key = (req: Json) => JSON.stringify(Object.keys(req ?? {}).sort());
  const bs = securityOf(ctx.before, b);
  const as = securityOf(ctx.after, a);
  const bKeys = new Set(bs.map(key));
  const aKeys = new Set(as.map(key));
  const pointer = 'security' in a.loc.node ? childPointer(a.loc.ptr, 'security') : '/security';
  // No requirement at all means anonymous access, like the empty requirement `{}`.
  const anon = (set: Set<string>, list: Json[]) => list.length === 0 || set.has('[]');
  if (anon(bKeys, bs) && !anon(aKeys, as)) {
    add(ctx, { classification: 'breaking', code: 'security-added', message: `operation ${label} now requires authentication`, pointer, inferred }, label);
    return;
  }
  if (anon(aKeys, as)) return;
  for (const k of bKeys) {
    if (!aKeys.has(k)) {
      add(ctx, { classification: 'breaking', code: 'security-requirement-removed', message: `operation ${label}: security requirement ${k} no longer accepted`, pointer, inferred }, label);
    }
  }
  for (const k of aKeys) {
    if (!bKeys.has(k)) {
      add(ctx, { classification: 'non-breaking', code: 'security-requirement-added', message: `operation ${label}: security requirement ${k} now also accepted`, pointer, inferred }, label);
    }
  }
}

interface ParamRef {
  loc: Located;
  node: Json;
  key: string;
  display: string;
}

function parameters(doc: Document, op: OperationRef): Map<string, ParamRef> {
  const out = new Map<string, ParamRef>();
  const collect = (owner: Located) => {
    const list = owner.node?.parameters;
    if (!Array.isArray(list)) return;
    list.forEach((_p: Json, i: number) => {
      const raw = doc.child(owner, 'parameters', i)!;
      const loc = doc.resolve({ ...raw, inferred: owner.inferred });
      const node = loc.node;
      if (!isObject(node)) return;
      const name = String(node.name);
      const index = op.pathParams.indexOf(name);
      const key = node.in === 'path' && index >= 0 ? `path#${index}` : `${node.in}:${node.in === 'header' ? name.toLowerCase() : name}`;
      out.set(key, { loc, node, key, display: `${node.in} parameter \`${name}\`` });
    });
  };
  collect(op.pathItem);
  collect(op.loc); // operation-level parameters override path-level ones
  return out;
}

function paramSchema(doc: Document, p: ParamRef): Located | undefined {
  if (isObject(p.node.schema)) return doc.child(p.loc, 'schema');
  if (isObject(p.node.content)) {
    const mt = Object.keys(p.node.content)[0];
    if (mt && isObject(p.node.content[mt]?.schema)) return doc.child(p.loc, 'content', mt, 'schema');
  }
  return undefined;
}

function compareParameters(ctx: Ctx, b: OperationRef, a: OperationRef, label: string, direction: Direction, opInferred: boolean): void {
  const bp = parameters(ctx.before, b);
  const ap = parameters(ctx.after, a);
  const clientSends = direction === 'request';
  for (const [key, p] of bp) {
    if (ap.has(key)) continue;
    add(ctx, {
      classification: 'breaking',
      code: 'parameter-removed',
      message: clientSends ? `${p.display} removed: clients that send it lose its effect` : `${p.display} removed: receivers that read it break`,
      pointer: p.loc.ptr,
      in: 'previous',
      direction,
      inferred: opInferred || p.loc.inferred,
    }, label);
  }
  for (const [key, p] of ap) {
    if (bp.has(key)) continue;
    const required = p.node.required === true;
    add(ctx, {
      classification: clientSends && required ? 'breaking' : 'non-breaking',
      code: clientSends && required ? 'required-parameter-added' : 'parameter-added',
      message: `${required ? 'required' : 'optional'} ${p.display} added`,
      pointer: p.loc.ptr,
      direction,
      inferred: opInferred || p.loc.inferred,
    }, label);
  }
  for (const [key, before] of bp) {
    const after = ap.get(key);
    if (!after) continue;
    const affects = `${label} · ${after.display}`;
    const inferred = Boolean(opInferred || before.loc.inferred || after.loc.inferred);
    if (before.node.name !== after.node.name) {
      add(ctx, { classification: 'documentation', code: 'path-parameter-renamed', message: `path parameter \`${before.node.name}\` renamed to \`${after.node.name}\` (matched by position)`, pointer: after.loc.ptr }, affects);
    }
    const wasRequired = before.node.required === true;
    const isRequired = after.node.required === true;
    if (wasRequired !== isRequired) {
      const breaking = clientSends ? isRequired : !isRequired;
      add(ctx, {
        classification: breaking ? 'breaking' : 'non-breaking',
        code: isRequired ? 'parameter-became-required' : 'parameter-became-optional',
        message: `${after.display} is now ${isRequired ? 'required' : 'optional'}`,
        pointer: childPointer(after.loc.ptr, 'required'),
        direction,
        inferred,
      }, affects);
    }
    for (const k of ['style', 'explode', 'allowReserved', 'allowEmptyValue']) {
      if (sameJson(before.node[k], after.node[k])) continue;
      add(ctx, { classification: 'breaking', code: 'parameter-serialization-changed', message: `${after.display}: \`${k}\` changed from ${JSON.stringify(before.node[k])} to ${JSON.stringify(after.node[k])}`, pointer: childPointer(after.loc.ptr, k), direction, inferred }, affects);
    }
    if (Boolean(before.node.deprecated) !== Boolean(after.node.deprecated)) {
      add(ctx, { classification: after.node.deprecated ? 'non-breaking' : 'documentation', code: after.node.deprecated ? 'deprecated' : 'undeprecated', message: `${after.display} ${after.node.deprecated ? 'deprecated' : 'no longer deprecated'}`, pointer: childPointer(after.loc.ptr, 'deprecated') }, affects);
    }
    compareDocKeys(ctx, before.loc, after.loc, affects);
    const bs = paramSchema(ctx.before, before);
    const as = paramSchema(ctx.after, after);
    if (bs && as) compareSchemas(bs, as, { before: ctx.before, after: ctx.after, sink: ctx.sink, direction, affects, field: String(after.node.name), inferred });
  }
}

function compareRequestBody(ctx: Ctx, b: OperationRef, a: OperationRef, label: string, direction: Direction, opInferred: boolean): void {
  const braw = ctx.before.child(b.loc, 'requestBody');
  const araw = ctx.after.child(a.loc, 'requestBody');
  if (!braw && !araw) return;
  const clientSends = direction === 'request';
  const what = clientSends ? 'request body' : 'delivered payload';
  if (braw && !araw) {
    add(ctx, { classification: 'breaking', code: 'request-body-removed', message: `${what} removed`, pointer: braw.ptr, in: 'previous', direction, inferred: opInferred }, label);
    return;
  }
  if (!braw && araw) {
    const required = ctx.after.resolve(araw).node?.required === true;
    add(ctx, {
      classification: clientSends && required ? 'breaking' : 'non-breaking',
      code: clientSends && required ? 'required-request-body-added' : 'request-body-added',
      message: `${required ? 'required' : 'optional'} ${what} added`,
      pointer: araw.ptr,
      direction,
      inferred: opInferred,
    }, label);
    return;
  }
  const bb = ctx.before.resolve({ ...braw!, inferred: opInferred });
  const ab = ctx.after.resolve({ ...araw!, inferred: opInferred });
  const inferred = Boolean(bb.inferred || ab.inferred);
  const wasRequired = bb.node?.required === true;
  const isRequired = ab.node?.required === true;
  if (wasRequired !== isRequired) {
    const breaking = clientSends ? isRequired : !isRequired;
    add(ctx, { classification: breaking ? 'breaking' : 'non-breaking', code: isRequired ? 'request-body-became-required' : 'request-body-became-optional', message: `${what} is now ${isRequired ? 'required' : 'optional'}`, pointer: childPointer(ab.ptr, 'required'), direction, inferred }, label);
  }
  compareDocKeys(ctx, bb, ab, label);
  compareContent(ctx, bb, ab, `${label} · ${what}`, direction, inferred, false);
}

/** Media types of a request body or response, and the schema of each. */
function compareContent(ctx: Ctx, b: Located, a: Located, affects: string, direction: Direction, inferred: boolean, response: boolean): void {
  const bc = isObject(b.node?.content) ? b.node.content : {};
  const ac = isObject(a.node?.content) ? a.node.content : {};
  for (const mt of Object.keys(bc)) {
    if (mt in ac) continue;
    add(ctx, { classification: 'breaking', code: 'media-type-removed', message: `media type ${mt} removed`, pointer: childPointer(b.ptr, 'content', mt), in: 'previous', direction, inferred }, affects);
  }
  for (const mt of Object.keys(ac)) {
    if (mt in bc) continue;
    add(ctx, { classification: 'non-breaking', code: 'media-type-added', message: `media type ${mt} added`, pointer: childPointer(a.ptr, 'content', mt), direction, inferred }, affects);
  }
  for (const mt of Object.keys(bc)) {
    if (!(mt in ac)) continue;
    const bm = ctx.before.child(b, 'content', mt)!;
    const am = ctx.after.child(a, 'content', mt)!;
    const where = `${affects} (${mt})`;
    compareExamples(ctx, bm, am, where);
    const bs = ctx.before.child(bm, 'schema');
    const as = ctx.after.child(am, 'schema');
    if (bs && as) compareSchemas(bs, as, { before: ctx.before, after: ctx.after, sink: ctx.sink, direction, affects: where, field: '', inferred });
    else if (bs || as) {
      add(ctx, { classification: 'breaking', code: 'schema-changed', message: `${mt}: schema ${bs ? 'removed' : 'added'}`, pointer: (as ?? bs)!.ptr, direction, inferred }, where);
    }
    if (!response && !sameJson(bm.node.encoding, am.node.encoding)) {
      add(ctx, { classification: 'breaking', code: 'encoding-changed', message: `${mt}: encoding changed`, pointer: childPointer(am.ptr, 'encoding'), direction, inferred }, where);
    }
  }
}

/**
 * Named examples: a frontend selects one on the mock with `Prefer: example=<name>`, so removing a
 * name is reported (non-breaking: it is not part of the API); changing one is documentation.
 */
function compareExamples(ctx: Ctx, b: Located, a: Located, affects: string): void {
  const be = isObject(b.node.examples) ? b.node.examples : {};
  const ae = isObject(a.node.examples) ? a.node.examples : {};
  for (const name of new Set([...Object.keys(be), ...Object.keys(ae)])) {
    if (!(name in ae)) {
      add(ctx, { classification: 'non-breaking', code: 'example-removed', message: `named example \`${name}\` removed (mock users selecting it with \`Prefer: example=${name}\` must pick another)`, pointer: childPointer(b.ptr, 'examples', name), in: 'previous' }, affects);
    } else if (!(name in be)) {
      add(ctx, { classification: 'documentation', code: 'example-added', message: `named example \`${name}\` added`, pointer: childPointer(a.ptr, 'examples', name) }, affects);
    } else if (!sameJson(ctx.before.resolve({ node: be[name], ptr: '' }).node, ctx.after.resolve({ node: ae[name], ptr: '' }).node)) {
      add(ctx, { classification: 'documentation', code: 'example-changed', message: `named example \`${name}\` changed`, pointer: childPointer(a.ptr, 'examples', name) }, affects);
    }
  }
  if (!sameJson(b.node.example, a.node.example)) {
    add(ctx, { classification: 'documentation', code: 'example-changed', message: '`example` changed', pointer: childPointer(a.ptr, 'example') }, affects);
  }
}

function compareResponses(ctx: Ctx, b: OperationRef, a: OperationRef, label: string, direction: Direction, opInferred: boolean): void {
  const br = isObject(b.loc.node.responses) ? b.loc.node.responses : {};
  const ar = isObject(a.loc.node.responses) ? a.loc.node.responses : {};
  const norm = (code: string) => code.toUpperCase();
  const aByCode = new Map(Object.keys(ar).map((c) => [norm(c), c]));
  const bByCode = new Map(Object.keys(br).map((c) => [norm(c), c]));
  for (const [code, raw] of bByCode) {
    if (aByCode.has(code)) continue;
    const success = code.startsWith('2');
    const loc = ctx.before.resolve({ ...ctx.before.child(b.loc, 'responses', raw)!, inferred: opInferred });
    add(ctx, {
      classification: success ? 'breaking' : 'non-breaking',
      code: success ? 'success-response-removed' : 'response-removed',
      message: `response ${raw} removed${success ? ': clients expecting it break' : ''}`,
      pointer: childPointer(b.loc.ptr, 'responses', raw),
      in: 'previous',
      direction,
      inferred: loc.inferred,
    }, label);
  }
  for (const [code, raw] of aByCode) {
    if (bByCode.has(code)) continue;
    add(ctx, { classification: 'non-breaking', code: 'response-added', message: `response ${raw} added`, pointer: childPointer(a.loc.ptr, 'responses', raw), direction, inferred: opInferred }, label);
  }
  for (const [code, braw] of bByCode) {
    const araw = aByCode.get(code);
    if (!araw) continue;
    const bl = ctx.before.resolve({ ...ctx.before.child(b.loc, 'responses', braw)!, inferred: opInferred });
    const al = ctx.after.resolve({ ...ctx.after.child(a.loc, 'responses', araw)!, inferred: opInferred });
    const inferred = Boolean(bl.inferred || al.inferred);
    const affects = `${label} · response ${araw}`;
    compareDocKeys(ctx, bl, al, affects);
    compareHeaders(ctx, bl, al, affects, direction, inferred);
    compareContent(ctx, bl, al, affects, direction, inferred, true);
  }
}

function compareHeaders(ctx: Ctx, b: Located, a: Located, affects: string, direction: Direction, opInferred: boolean): void {
  const bh = isObject(b.node.headers) ? b.node.headers : {};
  const ah = isObject(a.node.headers) ? a.node.headers : {};
  const lower = (o: Record<string, Json>) => new Map(Object.keys(o).map((k) => [k.toLowerCase(), k]));
  const bm = lower(bh);
  const am = lower(ah);
  for (const [k, name] of bm) {
    if (am.has(k)) continue;
    const loc = ctx.before.resolve(ctx.before.child(b, 'headers', name)!);
    add(ctx, { classification: 'breaking', code: 'response-header-removed', message: `header \`${name}\` removed: consumers that read it break`, pointer: childPointer(b.ptr, 'headers', name), in: 'previous', direction, inferred: opInferred || loc.inferred }, affects);
  }
  for (const [k, name] of am) {
    if (bm.has(k)) continue;
    add(ctx, { classification: 'non-breaking', code: 'response-header-added', message: `header \`${name}\` added`, pointer: childPointer(a.ptr, 'headers', name), direction, inferred: opInferred }, affects);
  }
  for (const [k, bname] of bm) {
    const aname = am.get(k);
    if (!aname) continue;
    const bl = ctx.before.resolve({ ...ctx.before.child(b, 'headers', bname)!, inferred: opInferred });
    const al = ctx.after.resolve({ ...ctx.after.child(a, 'headers', aname)!, inferred: opInferred });
    const inferred = Boolean(bl.inferred || al.inferred);
    const where = `${affects} header \`${aname}\``;
    if (bl.node.required === true && al.node.required !== true) {
      add(ctx, { classification: 'breaking', code: 'became-optional', message: `header \`${aname}\` is no longer always sent`, pointer: childPointer(al.ptr, 'required'), direction, inferred }, where);
    }
    compareDocKeys(ctx, bl, al, where);
    const bs = ctx.before.child(bl, 'schema');
    const as = ctx.after.child(al, 'schema');
    if (bs && as) compareSchemas(bs, as, { before: ctx.before, after: ctx.after, sink: ctx.sink, direction, affects: where, field: aname, inferred });
  }
}

/**
 * Named components: openapi-typescript turns them into the `components` type this package exports
 * (`components['schemas']['Message']`), so removing or renaming one breaks code that imports it.
 * Changes inside a component are reported where operations use it.
 */
function compareComponents(ctx: Ctx): void {
  const typed = ['schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'securitySchemes', 'pathItems'];
  const bc = isObject(ctx.before.root.components) ? ctx.before.root.components : {};
  const ac = isObject(ctx.after.root.components) ? ctx.after.root.components : {};
  for (const kind of new Set([...Object.keys(bc), ...Object.keys(ac)])) {
    const b = isObject(bc[kind]) ? bc[kind] : {};
    const a = isObject(ac[kind]) ? ac[kind] : {};
    const isTyped = typed.includes(kind);
    for (const name of Object.keys(b)) {
      if (name in a) continue;
      const inferred = isObject(b[name]) && b[name]['x-inferred'] === true;
      add(ctx, {
        classification: isTyped ? 'breaking' : 'documentation',
        code: 'component-removed',
        message: `component ${kind}/${name} removed${isTyped ? `: code importing \`components['${kind}']['${name}']\` breaks` : ''}`,
        pointer: childPointer('', 'components', kind, name),
        in: 'previous',
        inferred,
      }, 'components');
    }
    for (const name of Object.keys(a)) {
      if (name in b) continue;
      add(ctx, { classification: isTyped ? 'non-breaking' : 'documentation', code: 'component-added', message: `component ${kind}/${name} added`, pointer: childPointer('', 'components', kind, name) }, 'components');
    }
  }
  const bs = isObject(bc.securitySchemes) ? bc.securitySchemes : {};
  const as = isObject(ac.securitySchemes) ? ac.securitySchemes : {};
  for (const name of Object.keys(bs)) {
    if (!(name in as)) continue;
    const ptr = childPointer('', 'components', 'securitySchemes', name);
    for (const k of new Set([...Object.keys(bs[name] ?? {}), ...Object.keys(as[name] ?? {})])) {
      if (sameJson(bs[name]?.[k], as[name]?.[k])) continue;
      const doc = k === 'description' || k.startsWith('x-') || k === 'bearerFormat';
      add(ctx, { classification: doc ? 'documentation' : 'breaking', code: doc ? 'annotation-changed' : 'security-scheme-changed', message: `security scheme ${name}: \`${k}\` changed`, pointer: childPointer(ptr, k) }, 'components');
    }
  }
}

/** Root keys other than the ones compared above (tags, x-tagGroups, x-state-machines, ...). */
function compareRootDocs(ctx: Ctx): void {
  const handled = new Set(['openapi', 'info', 'servers', 'paths', 'webhooks', 'components', 'security']);
  const b = ctx.before.root;
  const a = ctx.after.root;
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (handled.has(k) || sameJson(b[k], a[k])) continue;
    add(ctx, { classification: 'documentation', code: 'annotation-changed', message: `\`${k}\` changed`, pointer: childPointer('', k), in: k in a ? 'current' : 'previous' }, 'document');
  }
  if (b.openapi !== a.openapi) {
    add(ctx, { classification: 'non-breaking', code: 'openapi-version-changed', message: `OpenAPI version changed from ${b.openapi} to ${a.openapi}`, pointer: '/openapi' }, 'document');
  }
}
