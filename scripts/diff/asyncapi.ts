// Compares two bundled AsyncAPI 3.0 documents: servers, channels (address, messages) and
// operations. The direction of a message follows the operation that carries it, from the
// service's side (this contract's perspective, see spec/asyncapi.yaml): what the service `send`s
// (and the replies it gives) is read by consumers (event side); what it `receive`s is written by
// clients (request side). A message that no operation carries counts as an event.

import { ChangeSink, type Direction } from './changes.js';
import { compareApiVersion } from './openapi.js';
import { compareSchemas } from './schema.js';
import { Document, type Json, type Located, childPointer, isObject, refName, sameJson } from './resolve.js';

interface Ctx {
  before: Document;
  after: Document;
  sink: ChangeSink;
}

const DOC_KEYS = new Set(['title', 'summary', 'description', 'tags', 'externalDocs', 'examples', 'name']);

function docChanges(ctx: Ctx, b: Located, a: Located, affects: string, inferred: boolean): void {
  const bn = isObject(b.node) ? b.node : {};
  const an = isObject(a.node) ? a.node : {};
  for (const k of new Set([...Object.keys(bn), ...Object.keys(an)])) {
    if (!(DOC_KEYS.has(k) || (k.startsWith('x-') && k !== 'x-inferred')) || sameJson(bn[k], an[k])) continue;
    ctx.sink.add({ classification: 'documentation', code: 'annotation-changed', message: `\`${k}\` ${bn[k] === undefined ? 'added' : an[k] === undefined ? 'removed' : 'changed'}`, pointer: childPointer(k in an ? a.ptr : b.ptr, k), in: k in an ? 'current' : 'previous', inferred }, affects);
  }
  if (Boolean(bn['x-inferred']) !== Boolean(an['x-inferred'])) {
    ctx.sink.add({ classification: 'documentation', code: 'inferred-marker-changed', message: an['x-inferred'] ? 'now marked inferred (x-inferred)' : 'now documented (no longer x-inferred)', pointer: childPointer(a.ptr, 'x-inferred') }, affects);
  }
}

const entries = (doc: Document, section: string): Map<string, Located> => {
  const obj = doc.root[section];
  if (!isObject(obj)) return new Map();
  return new Map(Object.keys(obj).map((k) => [k, doc.resolve({ node: obj[k], ptr: childPointer('', section, k) })]));
};

/** Compares the previous and current AsyncAPI descriptions; returns every change found. */
export function compareAsyncApi(beforeRoot: Json, afterRoot: Json): ChangeSink {
  const ctx: Ctx = { before: new Document(beforeRoot, 'asyncapi'), after: new Document(afterRoot, 'asyncapi'), sink: new ChangeSink('asyncapi') };
  const bi = ctx.before.root.info ?? {};
  const ai = ctx.after.root.info ?? {};
  compareApiVersion(ctx, bi, ai, '/info');
  docChanges(ctx, { node: bi, ptr: '/info' }, { node: ai, ptr: '/info' }, 'document', false);
  if (bi.version !== ai.version) {
    ctx.sink.add({ classification: 'documentation', code: 'annotation-changed', message: `\`version\` changed from ${bi.version} to ${ai.version}`, pointer: '/info/version' }, 'document');
  }
  compareServers(ctx);
  const directions = messageDirections(ctx);
  compareChannels(ctx, directions);
  compareOperations(ctx);
  return ctx.sink;
}

function compareServers(ctx: Ctx): void {
  const b = entries(ctx.before, 'servers');
  const a = entries(ctx.after, 'servers');
  for (const [name, loc] of b) {
    if (!a.has(name)) ctx.sink.add({ classification: 'breaking', code: 'server-removed', message: `server ${name} removed`, pointer: loc.ptr, in: 'previous', inferred: loc.inferred }, `server ${name}`);
  }
  for (const [name, loc] of a) {
    const old = b.get(name);
    if (!old) {
      ctx.sink.add({ classification: 'non-breaking', code: 'server-added', message: `server ${name} added`, pointer: loc.ptr, inferred: loc.inferred }, `server ${name}`);
      continue;
    }
    const inferred = Boolean(old.inferred || loc.inferred);
    for (const k of ['host', 'protocol', 'pathname', 'security', 'bindings']) {
      if (sameJson(old.node[k], loc.node[k])) continue;
      ctx.sink.add({ classification: 'breaking', code: 'server-changed', message: `server ${name}: \`${k}\` changed`, pointer: childPointer(loc.ptr, k), inferred }, `server ${name}`);
    }
    if (!sameJson(old.node.variables, loc.node.variables)) {
      ctx.sink.add({ classification: 'documentation', code: 'server-changed', message: `server ${name}: variables changed`, pointer: childPointer(loc.ptr, 'variables'), inferred }, `server ${name}`);
    }
    docChanges(ctx, old, loc, `server ${name}`, inferred);
  }
}

interface Use {
  directions: Set<Direction>;
  operations: string[];
}

/** For each `channelId/messageKey`: the directions it travels in and the operations that carry it. */
function messageDirections(ctx: Ctx): Map<string, Use> {
  const uses = new Map<string, Use>();
  for (const doc of [ctx.before, ctx.after]) {
    for (const [id, op] of entries(doc, 'operations')) {
      const channel = refName(op.node.channel) ?? '';
      const record = (list: Json, direction: Direction, replyChannel?: string) => {
        const messages: Json[] = Array.isArray(list) ? list : [];
        const all = messages.length ? messages.map((m) => refName(m) ?? '') : Object.keys(doc.root.channels?.[replyChannel ?? channel]?.messages ?? {});
        for (const m of all) {
          const key = `${replyChannel ?? channel}/${m}`;
          const use = uses.get(key) ?? { directions: new Set<Direction>(), operations: [] };
          use.directions.add(direction);
          if (!use.operations.includes(id)) use.operations.push(id);
          uses.set(key, use);
        }
      };
      const sends = op.node.action === 'send';
      record(op.node.messages, sends ? 'event' : 'request');
      if (isObject(op.node.reply)) record(op.node.reply.messages, sends ? 'request' : 'event', refName(op.node.reply.channel) ?? channel);
    }
  }
  return uses;
}

/** A `kind` (channel, operation) only the previous release has is removed (breaking); one only the current has, added. */
function addedAndRemoved(ctx: Ctx, kind: string, before: Map<string, Located>, after: Map<string, Located>): void {
  for (const [id, loc] of before) {
    if (!after.has(id)) ctx.sink.add({ classification: 'breaking', code: `${kind}-removed`, message: `${kind} ${id} removed`, pointer: loc.ptr, in: 'previous', inferred: loc.inferred }, `${kind} ${id}`);
  }
  for (const [id, loc] of after) {
    if (!before.has(id)) ctx.sink.add({ classification: 'non-breaking', code: `${kind}-added`, message: `${kind} ${id} added`, pointer: loc.ptr, inferred: loc.inferred }, `${kind} ${id}`);
  }
}

function compareChannels(ctx: Ctx, uses: Map<string, Use>): void {
  const b = entries(ctx.before, 'channels');
  const a = entries(ctx.after, 'channels');
  addedAndRemoved(ctx, 'channel', b, a);
  for (const [id, bc] of b) {
    const ac = a.get(id);
    if (!ac) continue;
    const label = `channel ${id}`;
    const inferred = Boolean(bc.inferred || ac.inferred);
    if (!sameJson(bc.node.address, ac.node.address)) {
      ctx.sink.add({ classification: 'breaking', code: 'channel-address-changed', message: `channel ${id}: address changed from ${JSON.stringify(bc.node.address)} to ${JSON.stringify(ac.node.address)}`, pointer: childPointer(ac.ptr, 'address'), inferred }, label);
    }
    for (const k of ['parameters', 'bindings']) {
      if (sameJson(bc.node[k], ac.node[k])) continue;
      ctx.sink.add({ classification: 'breaking', code: `channel-${k}-changed`, message: `channel ${id}: \`${k}\` changed`, pointer: childPointer(ac.ptr, k), inferred }, label);
    }
    docChanges(ctx, bc, ac, label, inferred);
    const bm = isObject(bc.node.messages) ? bc.node.messages : {};
    const am = isObject(ac.node.messages) ? ac.node.messages : {};
    for (const key of Object.keys(bm)) {
      if (key in am) continue;
      ctx.sink.add({ classification: 'breaking', code: 'message-removed', message: `message ${key} removed from channel ${id}`, pointer: childPointer(bc.ptr, 'messages', key), in: 'previous', inferred }, label);
    }
    for (const key of Object.keys(am)) {
      if (key in bm) continue;
      ctx.sink.add({ classification: 'non-breaking', code: 'message-added', message: `message ${key} added to channel ${id}`, pointer: childPointer(ac.ptr, 'messages', key), inferred }, label);
    }
    for (const key of Object.keys(bm)) {
      if (!(key in am)) continue;
      const use = uses.get(`${id}/${key}`);
      const directions = use ? [...use.directions] : (['event'] as Direction[]);
      const where = use ? use.operations.map((op) => `operation ${op}`).join(', ') : label;
      for (const direction of directions) {
        compareMessage(ctx, ctx.before.child(bc, 'messages', key)!, ctx.after.child(ac, 'messages', key)!, `${where} · message ${key}`, direction, inferred);
      }
    }
  }
}

function compareMessage(ctx: Ctx, braw: Located, araw: Located, affects: string, direction: Direction, outerInferred: boolean): void {
  const b = ctx.before.resolve({ ...braw, inferred: outerInferred });
  const a = ctx.after.resolve({ ...araw, inferred: outerInferred });
  const inferred = Boolean(b.inferred || a.inferred);
  if (!sameJson(b.node.contentType, a.node.contentType)) {
    ctx.sink.add({ classification: 'breaking', code: 'content-type-changed', message: `content type changed from ${b.node.contentType ?? '(default)'} to ${a.node.contentType ?? '(default)'}`, pointer: childPointer(a.ptr, 'contentType'), direction, inferred }, affects);
  }
  for (const k of ['correlationId', 'bindings', 'schemaFormat']) {
    if (sameJson(b.node[k], a.node[k])) continue;
    ctx.sink.add({ classification: 'breaking', code: `message-${k}-changed`, message: `\`${k}\` changed`, pointer: childPointer(a.ptr, k), direction, inferred }, affects);
  }
  docChanges(ctx, b, a, affects, inferred);
  // AsyncAPI 3.0 lets a payload be a Multi Format Schema Object (`{schemaFormat, schema}`).
  const schemaOf = (doc: Document, loc: Located | undefined): Located | undefined => {
    if (!loc) return undefined;
    const r = doc.resolve(loc);
    return isObject(r.node) && 'schemaFormat' in r.node && isObject(r.node.schema) ? doc.child(r, 'schema') : loc;
  };
  for (const part of ['payload', 'headers'] as const) {
    const bs = schemaOf(ctx.before, ctx.before.child(b, part));
    const as = schemaOf(ctx.after, ctx.after.child(a, part));
    if (bs && as) {
      compareSchemas(bs, as, { before: ctx.before, after: ctx.after, sink: ctx.sink, direction, affects: `${affects} ${part}`, field: part === 'headers' ? 'headers' : '', inferred });
    } else if (bs || as) {
      ctx.sink.add({ classification: bs ? 'breaking' : direction === 'request' ? 'breaking' : 'non-breaking', code: `message-${part}-${bs ? 'removed' : 'added'}`, message: `message ${part} ${bs ? 'removed' : 'added'}`, pointer: (as ?? bs)!.ptr, in: as ? 'current' : 'previous', direction, inferred }, affects);
    }
  }
}

function compareOperations(ctx: Ctx): void {
  const b = entries(ctx.before, 'operations');
  const a = entries(ctx.after, 'operations');
  const refs = (list: Json) => (Array.isArray(list) ? list.map((m: Json) => refName(m) ?? '').sort() : []);
  addedAndRemoved(ctx, 'operation', b, a);
  for (const [id, bo] of b) {
    const ao = a.get(id);
    if (!ao) continue;
    const label = `operation ${id}`;
    const inferred = Boolean(bo.inferred || ao.inferred);
    if (bo.node.action !== ao.node.action) {
      ctx.sink.add({ classification: 'breaking', code: 'operation-action-changed', message: `action changed from ${bo.node.action} to ${ao.node.action}`, pointer: childPointer(ao.ptr, 'action'), inferred }, label);
    }
    if (refName(bo.node.channel) !== refName(ao.node.channel)) {
      ctx.sink.add({ classification: 'breaking', code: 'operation-channel-changed', message: `channel changed from ${refName(bo.node.channel)} to ${refName(ao.node.channel)}`, pointer: childPointer(ao.ptr, 'channel'), inferred }, label);
    }
    const bm = refs(bo.node.messages);
    const am = refs(ao.node.messages);
    for (const m of bm.filter((x) => !am.includes(x))) {
      ctx.sink.add({ classification: 'breaking', code: 'operation-message-removed', message: `message ${m} no longer carried`, pointer: childPointer(bo.ptr, 'messages'), in: 'previous', inferred }, label);
    }
    for (const m of am.filter((x) => !bm.includes(x))) {
      ctx.sink.add({ classification: 'non-breaking', code: 'operation-message-added', message: `message ${m} now also carried`, pointer: childPointer(ao.ptr, 'messages'), inferred }, label);
    }
    const br = isObject(bo.node.reply) ? bo.node.reply : undefined;
    const ar = isObject(ao.node.reply) ? ao.node.reply : undefined;
    if (br && !ar) ctx.sink.add({ classification: 'breaking', code: 'reply-removed', message: 'reply removed', pointer: childPointer(bo.ptr, 'reply'), in: 'previous', inferred }, label);
    else if (!br && ar) ctx.sink.add({ classification: 'non-breaking', code: 'reply-added', message: 'reply added', pointer: childPointer(ao.ptr, 'reply'), inferred }, label);
    else if (br && ar && !sameJson(refs(br.messages), refs(ar.messages))) {
      ctx.sink.add({ classification: 'breaking', code: 'reply-messages-changed', message: 'reply messages changed', pointer: childPointer(ao.ptr, 'reply', 'messages'), inferred }, label);
    }
    if (!sameJson(bo.node.bindings, ao.node.bindings)) {
      ctx.sink.add({ classification: 'breaking', code: 'operation-bindings-changed', message: '`bindings` changed (for example the HTTP method)', pointer: childPointer(ao.ptr, 'bindings'), inferred }, label);
    }
    if (!sameJson(bo.node.security, ao.node.security)) {
      ctx.sink.add({ classification: 'breaking', code: 'operation-security-changed', message: '`security` changed', pointer: childPointer(ao.ptr, 'security'), inferred }, label);
    }
    docChanges(ctx, bo, ao, label, inferred);
  }
}
