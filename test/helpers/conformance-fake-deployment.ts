// A small deployment of the contract for the conformance suite's own tests: node:http on
// 127.0.0.1 (port 0), answering from the description's examples, keeping the rules the suite
// checks, and able to break one rule at a time (`fake.breaks.add('usage-days')`), so each check
// can be shown to pass against a conforming server and to fail against a broken one. It keeps
// state across requests (messages, calls, the account cap, an event queue), so the `writes`
// flows can be judged; and `quirks` make it answer the way a sound deployment may
// (`fake.quirks.add('gzip')`), which the suite must tolerate.
import { randomUUID } from 'node:crypto';
import { resolveRef } from '../../src/contract/json-pointer.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { documentedResponse, listOperations, loadDescription, type Json, type Operation } from '../../conformance/description.js';
import { contractValidator } from '../../src/contract/contract-validator.js';

/** The rules the fake can break, one per check (see the conformance tests). */
export type Break =
  | 'server-error' // GET /account answers 500
  | 'undocumented-status' // GET /account answers 418
  | 'content-type' // GET /account answers text/plain
  | 'schema' // GET /account breaks a documented field
  | 'inferred-schema' // GET /account breaks only an inferred field (advisory)
  | 'missing-retry-after' // lookup answers 429 without its required Retry-After
  | 'rate-limited-once' // lookup answers 429 (Retry-After: 1) once, then 200
  | 'rate-limited-always' // lookup always answers 429 (Retry-After: 1)
  | 'slow' // GET /account never answers in time
  | 'auth-ignored' // requests without a key are served
  | 'malformed-key-accepted' // any Bearer value is served
  | 'unknown-key-accepted' // any well-formed key (Bearer sk_live_...) is served, as the mock's own accounts do
  | 'signup-demands-key' // sign-up operations answer 401 without a key
  | 'body-before-key' // invalid bodies answer 400 before the key is checked
  | 'negative-accepted' // invalid bodies are accepted (201/200)
  | 'missing-header-accepted' // required header parameters are not enforced
  | 'unknown-id-200' // unknown ids are served from the example
  | 'usage-days' // periodDays echoes any days value
  | 'activity-limit' // limit is ignored
  | 'activity-order' // oldest first
  | 'activity-starting-after' // starting_after is ignored
  | 'history-over-100' // the message list holds 101 records
  | 'events-wait-status' // events/wait with timeout 1 answers 202
  | 'events-wait-range' // timeout outside 1..60 is accepted
  | 'key-preview-full' // the account shows the full key
  | 'account-duration-range' // PATCH /account accepts 59 and 3601
  | 'number-duration-range' // PATCH /numbers/{id} accepts 59 and 3601
  | 'call-replay-201' // an Idempotency-Key replay answers 201 again
  | 'send-message-200' // a sent message answers 200 instead of 201
  | 'test-message-external' // injected test messages are listed as external
  // The writes level's flows.
  | 'no-test-helper' // POST /api/v1/test/messages/inbound does not exist (404)
  | 'message-list-oldest-first' // the messages list is oldest first
  | 'injected-not-listed' // injected messages are answered but never listed
  | 'call-replay-new-call' // a replay places another call and answers it with 200
  | 'call-listed-twice' // a replay lists the original call a second time
  | 'no-message-received-event' // an injected message emits no message.received
  | 'event-source-external' // message.received of an injected message says source external
  | 'no-status-event' // a sent message emits no message.status_changed
  | 'wait-408-early' // events/wait answers 408 at once instead of holding for its timeout
  | 'wait-ignores-filter' // events/wait answers an event whatever its filter
  | 'account-cap-answer-stale' // PATCH /account stores the cap but answers the account as it was
  | 'account-cap-not-stored' // PATCH /account answers the new cap but does not keep it
  | 'echo-key' // the ids of created messages and calls contain the caller's key
  | 'message-ids-repeat' // every created message is answered the same id
  | 'event-message-id-mismatch' // message.received names another messageId (and relatedObject) than the injection answered
  | 'subscription-ops-accepted' // cancel, resume, change and preview answer 200 without a subscription
  | 'inject-anywhere' // the test helper injects to any number, the account's or not
  | 'whatsapp-spacing-ignored' // two WhatsApp messages inside a second are both sent
  // Documented values (part 2, 3, 6) broken inside an inferred envelope: failures all the same.
  | 'message-channel-unknown' // the messages list's records say channel "telegram"
  | 'message-source-unknown' // the messages list's records say source "carrier"
  | 'call-termination-unknown' // the calls list's records say terminationType "exploded"
  | 'group-channel-unknown' // the groups list's records say channel "telegram" (an inferred operation)
  | 'number-billing-mode-unknown' // the numbers list's records say billingMode "WEEKLY"
  | 'wait-event-source-unknown' // events/wait answers a message.received whose data.source is "carrier"
  | 'wait-event-version-2' // events/wait answers an event of an undocumented type with envelope version 2
  | 'full-key-in-message' // a message of the list carries another account's full key in its body
  // Accounts the writes level cannot run on (preconditions, not findings).
  | 'no-credit' // sends and calls answer 402, though the billing status shows no empty wallet
  | 'wallet-empty' // the billing status shows a balance of 0, and sends and calls answer 402
  | 'no-numbers'; // the account lists no number

/** What a sound deployment may do, and the suite must tolerate. */
export type Quirk =
  | 'charset-variant' // Content-Type application/json;charset=UTF-8
  | 'gzip' // every body gzip-encoded (Content-Encoding: gzip)
  | 'extra-fields' // an unknown field in every object answered
  | 'extra-headers' // headers the contract does not mention
  | 'unknown-event' // an event of a type the contract does not document after every event
  | 'status-data-renamed' // message.status_changed names the message as data.message_id (an inferred field)
  | 'messages-wrapped' // the messages list as {data: [...]} (its shape is inferred)
  // What the package's own mock announces at GET /__mock/about (spec/mock-control.yaml).
  | 'announces-any-key' // {mock: 'numbers-api', keys: 'any'}
  | 'announces-strict-keys'; // {mock: 'numbers-api', keys: 'strict'}

export interface FakeDeployment {
  url: string;
  breaks: Set<Break>;
  quirks: Set<Quirk>;
  /** Every request received: method, path and query, Authorization header, parsed body. */
  requests: { method: string; url: string; authorization?: string; body?: unknown; operationId?: string }[];
  account: Json;
  numbers: Json[];
  /** Calls placed, newest first. */
  calls: Json[];
  /** Forgets the events no wait has taken yet (between tests). */
  clearEvents(): void;
  close(): Promise<void>;
}

/** A full-length key of some other account (part 5.3: never in any answer). */
export const OTHER_ACCOUNT_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

function firstExample(document: Json, media: Json): Json | undefined {
  if (!media) return undefined;
  if (media.example !== undefined) return structuredClone(media.example);
  for (const ex of Object.values<Json>(media.examples ?? {})) {
    const value = resolveRef(document, ex)?.value;
    if (value !== undefined) return structuredClone(value);
  }
  return undefined;
}

/** A named example of a documented answer. */
function findExample(document: Json, op: Operation, status: number, name: string): Json {
  const example = documentedResponse(document, op, status)?.response?.content?.['application/json']?.examples?.[name];
  return structuredClone(resolveRef(document, example)?.value);
}

function responseExample(document: Json, op: Operation, status: number): Json | undefined {
  return firstExample(document, documentedResponse(document, op, status)?.response?.content?.['application/json']);
}

function allStrings(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) value.forEach((v) => allStrings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => allStrings(v, out));
  return out;
}

function matcher(op: Operation): RegExp {
  const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '([^/]+)');
  return new RegExp(`^${pattern}$`);
}

export async function startFakeDeployment(options: { apiKey: string; document?: Json }): Promise<FakeDeployment> {
  const document = options.document ?? loadDescription();
  const operations = listOperations(document);
  const validator = contractValidator(document);
  // Ids the examples mention are the resources this deployment holds; anything else is unknown.
  const knownIds = allStrings(document.components?.examples ?? {});
  for (const op of operations) for (const [, r] of Object.entries<Json>(op.operation.responses ?? {})) allStrings(resolveRef(document, r)?.content, knownIds);
  const byId = (id: string) => operations.find((o) => o.operationId === id) as Operation;
  const state = {
    account: responseExample(document, byId('getAccount'), 200),
    // The listed numbers, then a WhatsApp line bought warmed (the createNumber example).
    numbers: [...(responseExample(document, byId('listNumbers'), 200) as Json[]), findExample(document, byId('createNumber'), 201, 'whatsappReadyNumber')],
    /** Number id → when it last sent on WhatsApp (part 8: at least a second between two). */
    whatsappLastAt: new Map<string, number>(),
    messages: (responseExample(document, byId('listMessages'), 200) ?? []) as Json[],
    /** Calls by Idempotency-Key. */
    byKey: new Map<string, Json>(),
    callList: (responseExample(document, byId('listCalls'), 200) ?? []) as Json[],
    limitedOnce: false,
    /** Events no wait has taken yet, oldest first. */
    queue: [] as Json[],
    waiters: [] as { filters: Json; deliver: (event: Json) => void }[],
  };
  const fake: FakeDeployment = {
    url: '',
    breaks: new Set(),
    quirks: new Set(),
    requests: [],
    account: state.account,
    numbers: state.numbers,
    calls: state.callList,
    clearEvents: () => {
      state.queue = [];
    },
    close: async () => {},
  };

  const withExtraFields = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(withExtraFields);
    if (value && typeof value === 'object') {
      const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withExtraFields(v)]));
      return { ...out, conformanceUnknownField: { added: 'by the fake deployment' } };
    }
    return value;
  };
  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    const q = fake.quirks;
    let payload: string | Buffer = body === undefined ? '' : JSON.stringify(q.has('extra-fields') ? withExtraFields(body) : body);
    const head: Record<string, string> = {};
    if (body !== undefined) head['content-type'] = q.has('charset-variant') ? 'application/json;charset=UTF-8' : 'application/json; charset=utf-8';
    if (q.has('extra-headers')) Object.assign(head, { 'x-request-id': randomUUID(), 'x-powered-by': 'fake', 'cache-control': 'no-store', vary: 'Accept-Encoding', 'x-ratelimit-remaining': '99' });
    if (q.has('gzip') && payload !== '') {
      payload = gzipSync(payload);
      head['content-encoding'] = 'gzip';
    }
    res.writeHead(status, { ...head, ...headers });
    res.end(payload);
  };

  const matches = (filters: Json, event: Json) => !filters?.groupId || event.data?.groupId === filters.groupId;
  /** Delivers an event to every wait open now that it matches, or keeps it for the next wait. */
  const emit = (event: Json | undefined) => {
    const deliver = (e: Json) => {
      const taking = state.waiters.filter((w) => matches(w.filters, e));
      if (!taking.length) state.queue.push(e);
      for (const w of taking) w.deliver(e);
    };
    if (event) deliver(event);
    // After the event it accompanies: a wait that takes the unknown one first would otherwise miss
    // the next, as on any long poll that is not a queue (part 6 does not say it is one).
    if (fake.quirks.has('unknown-event')) deliver(envelope('call.completed', null, { note: 'a type the contract does not document' }));
  };
  const envelope = (type: string, relatedObject: Json, data: Json) => ({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    object: 'event',
    type,
    version: 1,
    createdAt: new Date().toISOString(),
    relatedObject,
    data,
  });
  const storeMessage = (message: Json) => {
    state.messages = [message, ...state.messages].slice(0, 100);
  };
  const error = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) => send(res, status, { error: message }, headers);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    let bodyIsJson = true;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        bodyIsJson = false;
      }
    }
    const method = (req.method ?? 'GET').toLowerCase();
    let op: Operation | undefined;
    let params: string[] = [];
    for (const candidate of operations) {
      const m = candidate.method === method ? matcher(candidate).exec(url.pathname) : null;
      if (m) {
        op = candidate;
        params = m.slice(1).map(decodeURIComponent);
        break;
      }
    }
    fake.requests.push({ method: method.toUpperCase(), url: url.pathname + url.search, authorization: req.headers.authorization, body, operationId: op?.operationId });
    if (op?.operationId === 'injectTestInboundMessage' && fake.breaks.has('no-test-helper')) op = undefined;
    if (!op && method === 'get' && url.pathname === '/__mock/about') {
      if (fake.quirks.has('announces-any-key')) return send(res, 200, { mock: 'numbers-api', keys: 'any' });
      if (fake.quirks.has('announces-strict-keys')) return send(res, 200, { mock: 'numbers-api', keys: 'strict' });
    }
    if (!op) return error(res, 404, 'No such route');
    const b = fake.breaks;
    const id = op.operationId;
    // A new record's id: random, or carrying the caller's key when the deployment echoes it.
    const echo = b.has('echo-key') ? (req.headers.authorization ?? '').replace(/^Bearer /, '') : '';
    const newId = (prefix: string) =>
      b.has('message-ids-repeat') && prefix.startsWith('msg_') ? `${prefix}repeated` : `${prefix}${echo ? `${echo}_` : ''}${randomUUID().replace(/-/g, '').slice(0, 12)}`;

    // Part 5.1: the key first.
    const authorization = req.headers.authorization;
    const validKey = authorization === `Bearer ${options.apiKey}`;
    const bodySchema = resolveRef(document, op.operation.requestBody)?.content?.['application/json']?.schema;
    const bodyInvalid = () => {
      if (!bodySchema) return false;
      if (!bodyIsJson) return true;
      if (body === undefined) return resolveRef(document, op.operation.requestBody)?.required === true;
      const pointer = `${op.pointer}/requestBody/content/application~1json/schema`;
      return !validator.accepts(pointer, body);
    };
    if (b.has('body-before-key') && bodyInvalid()) return error(res, 400, 'Invalid request body');
    if (op.authenticated) {
      const accepted =
        validKey ||
        (b.has('auth-ignored') && !authorization) ||
        (b.has('malformed-key-accepted') && authorization?.startsWith('Bearer ')) ||
        (b.has('unknown-key-accepted') && authorization?.startsWith('Bearer sk_live_'));
      if (!accepted) return error(res, 401, 'Invalid API key');
    } else if (b.has('signup-demands-key') && !authorization) return error(res, 401, 'Invalid API key');

    // Unknown ids: 404 (part 7).
    if (params.length && !b.has('unknown-id-200') && params.some((p) => !knownIds.has(p))) return error(res, 404, 'Not found');

    // Required header parameters.
    for (const p of op.parameters) {
      if (p.in === 'header' && p.required && req.headers[p.name.toLowerCase()] === undefined && !b.has('missing-header-accepted')) {
        return error(res, 400, `Missing header ${p.name}`);
      }
    }

    // Query parameters of string type against their schemas (enum, format, pattern).
    if (!b.has('negative-accepted')) {
      for (const p of op.parameters) {
        const value = url.searchParams.get(p.name);
        if (p.in !== 'query' || value === null || resolveRef(document, p.schema)?.type !== 'string') continue;
        if (!validator.accepts(p.schema, value)) return error(res, 400, `Invalid query parameter ${p.name}`);
      }
    }

    // The request body against its schema (ranges such as 60..3600 and 1..60 come from here).
    const durationBreak = (id === 'updateAccount' && b.has('account-duration-range')) || (id === 'updateNumber' && b.has('number-duration-range'));
    const rangeOnly = durationBreak && typeof (body as Json)?.maxCallDurationSeconds === 'number';
    const waitRangeOnly = id === 'waitForEvent' && b.has('events-wait-range') && typeof (body as Json)?.timeout === 'number';
    // Part 7's deterministic message-send texts, before the generic refusal.
    if (id === 'sendMessage' && (body as Json) && typeof body === 'object') {
      const request = body as Json;
      if ((request.to === undefined) === (request.groupId === undefined)) return error(res, 400, 'Provide exactly one of `to` or `groupId`.');
      if (request.groupId !== undefined && !state.messages.some((m) => m.groupId === request.groupId)) return error(res, 400, 'No such group on this account.');
    }
    if (bodyInvalid() && !b.has('negative-accepted') && !rangeOnly && !waitRangeOnly) return error(res, 400, 'Invalid request body');

    const success = Object.keys(op.operation.responses ?? {}).map(Number).filter((s) => s >= 200 && s < 300).sort()[0] ?? 200;
    const example = () => responseExample(document, op, success);
    switch (id) {
      case 'getAccount': {
        if (b.has('server-error')) return error(res, 500, 'Internal error');
        if (b.has('undocumented-status')) return error(res, 418, 'I am a teapot');
        if (b.has('content-type')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          return void res.end('maxCallDurationSeconds=null');
        }
        if (b.has('slow')) return; // never answers
        const account = structuredClone(state.account);
        if (b.has('schema')) account.maxCallDurationSeconds = 'ten minutes';
        if (b.has('inferred-schema')) account.apiKeys = 'sk_live_…p7dc';
        if (b.has('key-preview-full')) account.apiKeys = [{ preview: options.apiKey }];
        return send(res, 200, account);
      }
      case 'updateAccount': {
        const before = structuredClone(state.account);
        const value = (body as Json).maxCallDurationSeconds;
        if (!b.has('account-cap-not-stored')) state.account.maxCallDurationSeconds = value;
        if (b.has('account-cap-answer-stale')) return send(res, 200, before);
        return send(res, 200, { ...state.account, maxCallDurationSeconds: value });
      }
      case 'listNumbers':
        if (b.has('number-billing-mode-unknown')) return send(res, 200, state.numbers.map((n) => ({ ...n, billingMode: 'WEEKLY' })));
        return send(res, 200, b.has('no-numbers') ? [] : state.numbers);
      case 'getBilling':
        return send(res, 200, b.has('wallet-empty') ? { ...example(), balance: 0 } : example());
      case 'updateNumber': {
        const number = state.numbers.find((n) => n.id === params[0]) ?? state.numbers[0];
        if ((body as Json) && 'maxCallDurationSeconds' in (body as Json)) number.maxCallDurationSeconds = (body as Json).maxCallDurationSeconds;
        return send(res, 200, number);
      }
      case 'getUsage': {
        const usage = example();
        const days = Number(url.searchParams.get('days') ?? 30);
        usage.periodDays = b.has('usage-days') ? days : [7, 30, 90].includes(days) ? days : 30;
        return send(res, 200, usage);
      }
      case 'listBillingActivity': {
        const page = example();
        let items: Json[] = [...page.items].sort((x, y) => Date.parse(y.occurredAt) - Date.parse(x.occurredAt));
        const after = url.searchParams.get('starting_after');
        if (after && !b.has('activity-starting-after')) items = items.filter((i) => Date.parse(i.occurredAt) < Date.parse(after));
        const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 20) || 1));
        const hasMore = items.length > limit;
        if (!b.has('activity-limit')) items = items.slice(0, limit);
        if (b.has('activity-order')) items.reverse();
        return send(res, 200, { ...page, items, hasMore });
      }
      case 'listMessages': {
        const first = state.messages[0];
        let list = b.has('history-over-100') && first ? Array.from({ length: 101 }, (_, i) => ({ ...first, id: `msg_${i}` })) : state.messages;
        const group = url.searchParams.get('groupId');
        if (group !== null) list = list.filter((m) => m.groupId === group);
        if (b.has('message-list-oldest-first')) list = [...list].reverse();
        if (b.has('message-channel-unknown')) list = list.map((m) => ({ ...m, channel: 'telegram' }));
        if (b.has('message-source-unknown')) list = list.map((m) => ({ ...m, source: 'carrier' }));
        if (b.has('full-key-in-message')) list = list.map((m, i) => (i === 0 ? { ...m, body: `your key is ${OTHER_ACCOUNT_KEY}` } : m));
        return send(res, 200, fake.quirks.has('messages-wrapped') ? { data: list } : list);
      }
      // Sign-up steps on a verification or registration the deployment never issued (part 4.1).
      case 'verifyEmail':
        if (!knownIds.has(String((body as Json)?.verificationId))) return error(res, 401, 'Invalid or expired code');
        return send(res, success, example());
      case 'registerNumber':
      case 'verifyPhoneNumber':
        if (!knownIds.has(String((body as Json)?.registrationId))) return error(res, 409, 'Registration not found or already complete.');
        return send(res, success, example());
      // The billing status shows no subscription (its payAsYouGo example): nothing to act on (part 4.4).
      case 'cancelSubscription':
      case 'resumeSubscription':
      case 'changeSubscriptionInterval':
      case 'previewSubscriptionChange':
        if (b.has('subscription-ops-accepted')) return send(res, 200, { ok: true });
        return error(res, 409, 'No active subscription');
      case 'listCalls':
        return send(res, 200, b.has('call-termination-unknown') ? state.callList.map((c) => ({ ...c, terminationType: 'exploded' })) : state.callList);
      case 'listGroups':
        return send(res, 200, b.has('group-channel-unknown') ? (example() as Json[]).map((g) => ({ ...g, channel: 'telegram' })) : example());
      case 'waitForEvent': {
        const timeout = (body as Json)?.timeout;
        const filters = (body as Json)?.filters ?? {};
        if (timeout === 1 && b.has('events-wait-status')) return send(res, 202, {});
        // Out of range only gets here when the range break accepts it: answer at once.
        if (typeof timeout !== 'number' || timeout < 1 || timeout > 60 || b.has('wait-408-early')) return send(res, 408, responseExample(document, op, 408));
        if (b.has('wait-ignores-filter')) return send(res, 200, envelope('call.completed', null, {}));
        if (b.has('wait-event-version-2')) return send(res, 200, { ...envelope('call.completed', null, {}), version: 2 });
        if (b.has('wait-event-source-unknown')) {
          const received = responseExample(document, op, 200) as Json;
          return send(res, 200, { ...received, data: { ...received.data, source: 'carrier' } });
        }
        const queued = state.queue.findIndex((e) => matches(filters, e));
        if (queued >= 0) return send(res, 200, state.queue.splice(queued, 1)[0]);
        const waiter = {
          filters,
          deliver: (event: Json) => {
            clearTimeout(timer);
            state.waiters = state.waiters.filter((w) => w !== waiter);
            send(res, 200, event);
          },
        };
        const timer = setTimeout(() => {
          state.waiters = state.waiters.filter((w) => w !== waiter);
          send(res, 408, responseExample(document, op, 408));
        }, timeout * 1000);
        state.waiters.push(waiter);
        res.on('close', () => {
          clearTimeout(timer);
          state.waiters = state.waiters.filter((w) => w !== waiter);
        });
        return;
      }
      case 'lookupNumber': {
        if (b.has('missing-retry-after')) return error(res, 429, 'Lookup limit reached');
        const once = b.has('rate-limited-once') && !state.limitedOnce;
        if (once) state.limitedOnce = true;
        if (b.has('rate-limited-always') || once) return error(res, 429, 'Lookup limit reached', { 'retry-after': '1' });
        return send(res, 200, example());
      }
      case 'createCall': {
        if (b.has('no-credit') || b.has('wallet-empty')) return error(res, 402, 'Insufficient credit. Top up your wallet to continue.');
        const key = req.headers['idempotency-key'] as string | undefined;
        const replay = key ? state.byKey.get(key) : undefined;
        const place = () => {
          const call = { ...responseExample(document, op, 201), id: newId('call_') };
          state.callList.unshift(call);
          return call;
        };
        if (replay) {
          if (b.has('call-replay-new-call')) return send(res, 200, place());
          if (b.has('call-listed-twice')) state.callList.unshift(replay);
          return send(res, b.has('call-replay-201') ? 201 : 200, replay);
        }
        const call = place();
        if (key) state.byKey.set(key, call);
        return send(res, 201, call);
      }
      case 'sendMessage': {
        if (b.has('no-credit') || b.has('wallet-empty')) return error(res, 402, 'Insufficient credit. Top up your wallet to continue.');
        const request = body as Json;
        const number = state.numbers.find((n) => n.id === request.fromNumberId) ?? state.numbers[0];
        if (request.channel === 'whatsapp' && !bodyInvalid()) {
          const last = state.whatsappLastAt.get(number.id);
          if (last !== undefined && Date.now() - last < 1000 && !b.has('whatsapp-spacing-ignored')) return send(res, 429, { error: 'Too many requests', code: 'rate_limited' }, { 'retry-after': '1' });
          state.whatsappLastAt.set(number.id, Date.now());
        }
        const message = { ...example(), id: newId('msg_'), phoneNumberId: number?.id, to: request.to, from: number?.number, body: request.body ?? '', source: 'external' };
        // A body accepted only because of 'negative-accepted' is answered, not kept: the list stays valid for later checks.
        if (!bodyInvalid()) storeMessage(message);
        send(res, b.has('send-message-200') ? 200 : 201, message);
        if (!b.has('no-status-event')) {
          const renamed = fake.quirks.has('status-data-renamed');
          const related = renamed ? null : { id: message.id, type: 'message', url: null };
          emit(envelope('message.status_changed', related, renamed ? { message_id: message.id, status: 'delivered' } : { messageId: message.id, status: 'delivered' }));
        }
        return;
      }
      case 'injectTestInboundMessage': {
        const request = body as Json;
        if (!state.numbers.some((n) => n.number === request.to) && !b.has('inject-anywhere')) return error(res, 404, 'No such number on this account.');
        const number = state.numbers.find((n) => n.number === request.to) ?? state.numbers[0];
        const message = {
          ...(state.messages[0] ?? {}),
          id: newId('msg_test_'),
          phoneNumberId: number?.id,
          groupId: null,
          channel: 'sms',
          from: request.from,
          to: request.to,
          body: request.body ?? '',
          media: [],
          replyToId: null,
          reaction: null,
          source: b.has('test-message-external') ? 'external' : 'internal',
        };
        if (!b.has('injected-not-listed')) storeMessage(message);
        send(res, 201, message);
        const { id: messageId, phoneNumberId: _line, ...rest } = message;
        const named = b.has('event-message-id-mismatch') ? `msg_other_${randomUUID().slice(0, 8)}` : messageId;
        const received = envelope('message.received', { id: named, type: 'message', url: null }, { messageId: named, ...rest, source: b.has('event-source-external') ? 'external' : 'internal' });
        emit(b.has('no-message-received-event') ? undefined : received);
        return;
      }
      default:
        return send(res, success, example());
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) error(res, 500, e.message);
    });
  });
  // As the mock and common front ends keep an idle connection (65 s), not Node's 5 s: a client that
  // reuses a connection the server is closing that very moment reads ECONNRESET, which a loaded
  // machine makes likely and no deployment of this kind shows.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
