// Events tie to actions (part 6), through the long poll `POST /api/v1/events/wait`:
// - an injected inbound message arrives as `message.received`, with the listed `messageId` and
//   `source` internal;
// - a sent message's `message.status_changed` names it (its data fields are not shown in part 6:
//   the contract infers `messageId`, so anything short of that is advisory);
// - a wait whose filter matches nothing holds for its timeout, then answers 408.
// The wait is a long poll, not a queue (whether an event between two waits is kept is not shown),
// so the suite opens a wait before it acts and keeps one open until the event or the window ends.
import { randomUUID } from 'node:crypto';
import { findOperation, type Json, type Operation } from '../description.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import type { Exchange } from '../http.js';
import { nonexistentId } from '../policy.js';
import { allStrings, listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { requestProperties } from './shared.js';
import { idOf, MESSAGE_BODY, needFields, senderNumber, sleep, testHelperAvailable, WRITES_LOCK } from './write-helpers.js';

/** Longest single wait of a poll: short enough that a finished flow is not held long. */
const POLL_SECONDS = 5;
/** Lets the first wait reach the deployment before the action that causes the event. */
const HEAD_START_MS = 300;
/** At most this many waits per flow: a deployment that answers every wait at once with some other event is not polled without end. */
const MAX_WAITS = 30;
/** The wait filtered to a group that cannot exist, held while the flow's message arrives. */
const FILTERED_WAIT_SECONDS = 2;

interface Seen {
  event: Json;
  ex: Exchange;
}

interface Polled<T> {
  result: T;
  /** Every event that arrived while polling, in order. */
  events: Seen[];
  found?: Seen;
  /** A wait answered something other than an event or 408 (503: no event stream), and polling stopped. */
  stoppedBy?: Exchange;
  /** The last wait's answer. */
  lastWait?: Exchange;
  /** How long it polled, for a reason: `within 20 s` (the window closed) or `in 30 waits` (MAX_WAITS). */
  ended: string;
}

function isEvent(body: unknown): body is Json {
  return !!body && typeof body === 'object' && typeof (body as Json).type === 'string';
}

/**
 * Runs `action` while waiting for events, and keeps waiting until an event `wanted(result)`
 * accepts has arrived, or the window (`--event-window`) closes. Events of other types, other
 * messages, or types the suite does not know are kept in `events` and otherwise passed over.
 */
async function pollAround<T>(
  ctx: ScenarioContext,
  wait: Operation,
  action: () => Promise<T>,
  wanted: (result: T) => ((event: Json) => boolean) | undefined,
): Promise<Polled<T>> {
  const deadline = Date.now() + ctx.config.eventWindowMs;
  const events: Seen[] = [];
  let match: ((event: Json) => boolean) | undefined;
  let stop = false;
  let stoppedBy: Exchange | undefined;
  let lastWait: Exchange | undefined;
  let waits = 0;
  const found = () => (match ? events.find((s) => match?.(s.event)) : undefined);
  const polling = (async () => {
    for (; waits < MAX_WAITS && !stop && !found() && Date.now() < deadline; waits++) {
      const seconds = Math.max(1, Math.min(POLL_SECONDS, Math.ceil((deadline - Date.now()) / 1000)));
      const ex = await ctx.send(wait, { body: { timeout: seconds, filters: {} }, timeoutMs: seconds * 1000 + 15_000 });
      lastWait = ex;
      if (ex.status === 200 && isEvent(ex.body)) events.push({ event: ex.body, ex });
      else if (ex.status !== 408) {
        stoppedBy = ex;
        return;
      }
    }
  })().then(
    () => undefined,
    (error: unknown) => error,
  );
  await sleep(HEAD_START_MS);
  let result: T;
  try {
    result = await action();
  } catch (error) {
    stop = true;
    await polling;
    throw error;
  }
  match = wanted(result);
  if (!match) stop = true;
  const failure = await polling;
  if (failure) throw failure;
  const ended = waits >= MAX_WAITS ? `in ${MAX_WAITS} waits` : `within ${Math.round(ctx.config.eventWindowMs / 1000)} s`;
  return { result, events, found: found(), stoppedBy, lastWait, ended };
}

/** A filter no event can match: a `groupId` that cannot exist, shaped like the documented one; undefined when the description has none. */
function unmatchableFilters(ctx: ScenarioContext, wait: Operation): Json | undefined {
  const filters = resolveRef(ctx.env.document, requestProperties(ctx.env.document, wait).get('filters'));
  const groupId = resolveRef(ctx.env.document, filters?.properties?.groupId);
  if (!groupId) return undefined;
  const example = Array.isArray(groupId.examples) ? groupId.examples[0] : groupId.example;
  return { groupId: nonexistentId(example) };
}

const NO_MATCH_CHECK = 'event-wait-no-match-408';
const NO_MATCH_PART = '4.5, 6, 8';

function stoppedReason(ex: Exchange): string {
  return ex.status === 503 ? '503: the event stream is not configured on this deployment (part 7).' : `events/wait answered ${ex.status}.`;
}

export function eventFlowScenarios(operations: Operation[]): ScenarioDraft[] {
  const wait = findOperation(operations, 'waitForEvent');
  if (!wait) return [];
  const inject = findOperation(operations, 'injectTestInboundMessage');
  const send = findOperation(operations, 'sendMessage');
  const listMessages = findOperation(operations, 'listMessages');
  const scenarios: ScenarioDraft[] = [];

  scenarios.push({
    id: 'waitForEvent/event-message-received',
    operationId: wait.operationId,
    check: 'event-message-received',
    part: '6',
    level: 'writes',
    exclusive: WRITES_LOCK,
    title: 'an injected inbound message arrives through events/wait as `message.received`, with the listed `messageId` and `source` internal (part 6)',
    provokes: ['injectTestInboundMessage 201', 'waitForEvent 200'],
    async run(ctx) {
      if (!(await testHelperAvailable(ctx, inject)) || !inject) {
        return ctx.skip('The deployment has no test helper to inject an inbound message with (POST /api/v1/test/messages/inbound is inferred); the suite cannot cause an inbound message otherwise.');
      }
      needFields(ctx, inject, ['to', 'from']);
      const number = await senderNumber(ctx);
      if (!number.number) return ctx.skip('The listed number has no `number` to inject to.');
      ctx.reserveSends(1, 'message.received (one injected test message)');
      // A text of its own, so that its event is known by what it carries even if its ids differ.
      const text = `${MESSAGE_BODY} (event ${randomUUID().slice(0, 8)})`;
      const about = (e: Json, id: string | undefined) => e.type === 'message.received' && ((id !== undefined && (e.data?.messageId === id || e.relatedObject?.id === id)) || e.data?.body === text);
      // Beside the poll, a wait filtered to a group that cannot exist is held while the message
      // arrives: it must not answer it (part 4.5: the filter applies). Judged on the flow's own
      // traffic, so it holds whatever else the account is doing (and a --rerun alone judges it).
      const unmatchable = unmatchableFilters(ctx, wait);
      const filtered = unmatchable
        ? ctx.send(wait, { body: { timeout: FILTERED_WAIT_SECONDS, filters: unmatchable }, timeoutMs: FILTERED_WAIT_SECONDS * 1000 + 15_000 }).catch(() => undefined)
        : Promise.resolve(undefined);
      const polled = await pollAround(
        ctx,
        wait,
        () => ctx.write(inject, { body: { to: number.number, from: ctx.config.to, body: text } }),
        (ex) => (ex.status === 201 ? (e) => about(e, idOf(ex.body)) : undefined),
      );
      const injected = polled.result;
      const id = idOf(injected.body);
      const held = await filtered;
      if (held?.status === 200 && isEvent(held.body)) {
        const facts = { expected: { status: 408 }, actual: { status: 200, type: held.body.type, aboutTheMessage: about(held.body, id) } };
        ctx.record('fail', `A wait filtered to groupId ${JSON.stringify(unmatchable?.groupId)}, a group that cannot exist, answered an event while a message arrived: the filter was not applied (part 4.5).`, held, NO_MATCH_CHECK, NO_MATCH_PART, facts);
      } else if (held?.status === 408) {
        ctx.record('pass', 'A wait filtered to a group that cannot exist held while the message arrived, then answered 408.', held, NO_MATCH_CHECK, NO_MATCH_PART);
      }
      if (!ctx.expect(injected.status === 201, `The test helper answered ${injected.status} (201 required for a fresh creation).`, injected)) return;
      if (!id) return ctx.advisory('The injected message carries no `id` (the helper is inferred), so its event cannot be told from others.', injected);
      if (polled.stoppedBy) return ctx.skip(stoppedReason(polled.stoppedBy));
      const { found } = polled;
      if (!found) {
        const ofKind = polled.events.filter((s) => s.event.type === 'message.received');
        if (ofKind.length > 0) {
          // Events of the awaited kind came, and none is about this message: they name other ids.
          const named = ofKind.map((s) => String(s.event.data?.messageId)).join(', ');
          return ctx.fail(
            `POST /api/v1/test/messages/inbound answered the message ${id}, but the ${ofKind.length} message.received that arrived through events/wait ${polled.ended} name ${named}, and none carries its text; part 6: it fires once per inbound message, with its messageId.`,
            ofKind[0]!.ex,
          );
        }
        // None of the kind at all: with other events arriving, ours may have fired while a wait was
        // being renewed (the long poll is not a queue; part 6 does not say it keeps events).
        const others = polled.events.length;
        const reason = `No message.received arrived through events/wait ${polled.ended}`;
        if (others === 0) return ctx.fail(`${reason}, and no other event did; part 6: it fires once per inbound message.`, polled.lastWait);
        return ctx.advisory(`${reason}; ${others} event(s) of other types did, so it may have fired while a wait was being renewed (the long poll is not a queue).`, polled.lastWait);
      }
      ctx.pass(`message.received for ${id} arrived through events/wait.`, found.ex);
      // What the injection answered and what its event carries: the same message (part 6).
      const message = injected.body as Json;
      ctx.same('The message id', { ex: injected, at: 'id', value: id }, { ex: found.ex, at: 'data.messageId', value: found.event.data?.messageId }, '6');
      ctx.same('The message the event is about', { ex: injected, at: 'id', value: id }, { ex: found.ex, at: 'relatedObject.id', value: found.event.relatedObject?.id }, '6');
      for (const field of ['from', 'to', 'body', 'channel'] as const) {
        if (message?.[field] !== undefined) ctx.same(`The message's ${field}`, { ex: injected, at: field, value: message[field] }, { ex: found.ex, at: `data.${field}`, value: found.event.data?.[field] }, '6');
      }
      const source = found.event.data?.source;
      ctx.expect(source === 'internal', `Its data.source is ${JSON.stringify(source)} (internal required for injected test traffic, part 6).`, found.ex);
      if (!listMessages) return;
      const list = await ctx.send(listMessages, {});
      const records = listRecords(list.body)?.records;
      if (list.status !== 200 || !records) return ctx.advisory(`The messages list could not be read (${list.status}) to compare the messageId with.`, list);
      const listed = records.some((r) => r.id === found.event.data?.messageId);
      ctx.expect(listed, listed ? `Its messageId ${id} is the id in the messages list.` : `Its messageId ${String(found.event.data?.messageId)} is not in the messages list (part 6: it matches the id in the list).`, list);
    },
  });

  if (send) {
    scenarios.push({
      id: 'sendMessage/event-message-status-changed',
      operationId: send.operationId,
      check: 'event-message-status-changed',
      part: '4.5, 6',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'a message to --to answers 201, and its `message.status_changed` names it (parts 4.5, 6; the data fields are inferred: advisory)',
      provokes: ['sendMessage 201'],
      async run(ctx) {
        needFields(ctx, send, ['to', 'fromNumberId', 'body']);
        const number = await senderNumber(ctx);
        ctx.reserveSends(1, 'message.status_changed (one message to --to)');
        const names = (e: Json, id: string) => e.data?.messageId === id || e.relatedObject?.id === id;
        const polled = await pollAround(
          ctx,
          wait,
          () => ctx.write(send, { body: { to: ctx.config.to, fromNumberId: number.id, body: `${MESSAGE_BODY} (status)` } }),
          (ex) => {
            const id = idOf(ex.body);
            // Stops at the first status event that mentions the id anywhere; judged below.
            return id ? (e) => e.type === 'message.status_changed' && (names(e, id) || allStrings(e.data).includes(id)) : undefined;
          },
        );
        const sent = polled.result;
        if (!ctx.expect(sent.status === 201, `The message to --to answered ${sent.status} (201 required, part 4.5).`, sent)) return;
        const id = idOf(sent.body);
        if (!id) return ctx.advisory('The sent message carries no `id` (the response fields are inferred), so its status event cannot be told from others.', sent);
        if (polled.stoppedBy) return ctx.skip(stoppedReason(polled.stoppedBy));
        const { found } = polled;
        if (!found) {
          const others = polled.events.filter((s) => s.event.type === 'message.status_changed').length;
          return ctx.advisory(
            `No message.status_changed naming ${id} arrived ${polled.ended} (${others} for other messages). Part 6 gives no timing, and delivery to a test number may take longer.`,
            polled.lastWait,
          );
        }
        if (found.event.data?.messageId === id) ctx.pass(`message.status_changed names ${id} in data.messageId.`, found.ex);
        else if (found.event.relatedObject?.id === id) ctx.pass(`message.status_changed names ${id} in relatedObject.id.`, found.ex);
        else {
          const field = Object.entries<unknown>(found.event.data ?? {}).find(([, v]) => v === id)?.[0];
          ctx.advisory(
            `message.status_changed names ${id}${field ? ` in data.${field}` : ' inside its data'}, not in data.messageId, which the contract infers (part 6 shows no data fields).`,
            found.ex,
          );
        }
      },
    });
  }

  scenarios.push({
    id: 'waitForEvent/event-wait-no-match-408',
    operationId: wait.operationId,
    check: NO_MATCH_CHECK,
    part: NO_MATCH_PART,
    // Waiting changes nothing: the contract level has it.
    level: 'contract',
    title: 'a wait whose filter matches nothing holds for its timeout, then answers 408 (parts 4.5, 6, 8)',
    provokes: ['waitForEvent 408'],
    async run(ctx) {
      // A group id that cannot exist, shaped like the documented one: no event can match it. On a
      // quiet account nothing happens during the wait, so an ignored filter shows only at --level
      // writes, in the message.received flow (above), where a message arrives while it is held.
      const filters = unmatchableFilters(ctx, wait);
      if (!filters) return ctx.skip('The request schema of waitForEvent no longer has filters.groupId.');
      const timeout = 1;
      const ex = await ctx.send(wait, { body: { timeout, filters }, timeoutMs: timeout * 1000 + 15_000 });
      if (ex.status === 503) return ctx.skip(stoppedReason(ex));
      if (ex.status === 200) return ctx.fail('200: an event was returned for a group that cannot exist, so the filter was not applied.', ex);
      if (!ctx.expect(ex.status === 408, `${ex.status} once the window closed (408 required).`, ex)) return;
      // Measured from before the request left, so a conforming hold is never short of the timeout;
      // a little slack covers coarse timers.
      const held = ex.durationMs >= timeout * 1000 - 50;
      ctx.expect(
        held,
        held ? `408 after ${(ex.durationMs / 1000).toFixed(1)} s: the wait held for its ${timeout} s timeout.` : `408 after ${ex.durationMs} ms, before its ${timeout} s timeout: the wait did not hold.`,
        ex,
      );
    },
  });
  return scenarios;
}
