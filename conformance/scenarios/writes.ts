// The opt-in `writes` level (`--level writes --to <test number>`): checks that create things. A
// message through the inferred test helper and one to the given number, and a call with an
// Idempotency-Key sent twice to prove the 200 replay of part 7.2. Nothing else is created.
import { findOperation, type Operation } from '../description.js';
import type { Scenario, ScenarioContext } from '../scenario.js';
import { isSuccess, requestFields } from './shared.js';
import { listRecords } from '../records.js';
import { randomUUID } from 'node:crypto';

const MESSAGE_BODY = 'numbers-api conformance test message. No reply needed.';
const CALL_INSTRUCTION = 'This is an automated conformance test call. Say that it is a test, say goodbye and hang up.';

function needFields(ctx: ScenarioContext, op: Operation, fields: string[]): void {
  const have = requestFields(ctx.env.document, op);
  const missing = fields.filter((f) => !have.has(f));
  if (missing.length) ctx.skip(`The request schema of ${op.operationId} no longer has ${missing.join(', ')}.`);
}

async function senderNumber(ctx: ScenarioContext) {
  const number = await ctx.env.fixtures.firstNumber();
  if (!number) return ctx.skip('The account lists no number to send from.');
  return number;
}

export function writeScenarios(operations: Operation[]): Scenario[] {
  const scenarios: Scenario[] = [];
  const inject = findOperation(operations, 'injectTestInboundMessage');
  const listMessages = findOperation(operations, 'listMessages');
  if (inject) {
    scenarios.push({
      id: 'injectTestInboundMessage/writes-test-message',
      operationId: inject.operationId,
      check: 'writes-test-message',
      part: '2, 4.5',
      level: 'writes',
      title: 'a test inbound message is accepted and listed with `source` internal (parts 2, 4.5)',
      async run(ctx) {
        needFields(ctx, inject, ['to', 'from']);
        const number = await senderNumber(ctx);
        if (!number.number) return ctx.skip('The listed number has no `number` to inject to.');
        const ex = await ctx.send(inject, { body: { to: number.number, from: ctx.config.to, body: MESSAGE_BODY } });
        if (!isSuccess(ex.status)) return ctx.fail(`The test helper answered ${ex.status}.`, ex);
        ctx.pass(`${ex.status}: test message injected.`, ex);
        const id = (ex.body as { id?: unknown } | undefined)?.id;
        if (!listMessages || typeof id !== 'string') return ctx.advisory('The answer carries no `id` to find in the list (the helper is inferred).', ex);
        const list = await ctx.send(listMessages, {});
        const record = listRecords(list.body)?.records.find((r) => r.id === id);
        if (!record) ctx.advisory(`Message ${id} is not in the message list yet.`, list);
        else ctx.expect(record.source === 'internal', `Listed with source ${JSON.stringify(record.source)} (internal required, part 2).`, list);
      },
    });
  }
  const send = findOperation(operations, 'sendMessage');
  if (send) {
    scenarios.push({
      id: 'sendMessage/writes-send-message',
      operationId: send.operationId,
      check: 'writes-send-message',
      part: '4.5',
      level: 'writes',
      title: 'a message to the test number answers 201 (part 4.5)',
      async run(ctx) {
        needFields(ctx, send, ['to', 'fromNumberId', 'body']);
        const number = await senderNumber(ctx);
        const ex = await ctx.send(send, { body: { to: ctx.config.to, fromNumberId: number.id, body: MESSAGE_BODY } });
        ctx.expect(ex.status === 201, `${ex.status} (201 required for a sent message).`, ex);
      },
    });
  }
  const call = findOperation(operations, 'createCall');
  if (call) {
    scenarios.push({
      id: 'createCall/writes-idempotent-replay',
      operationId: call.operationId,
      check: 'call-idempotent-replay',
      part: '7',
      level: 'writes',
      title: 'a call with an Idempotency-Key answers 201, and the same key again replays it with 200 (part 7.2)',
      async run(ctx) {
        needFields(ctx, call, ['to', 'fromNumberId', 'outboundInstruction', 'maxCallDurationSeconds']);
        const number = await senderNumber(ctx);
        const headers = { 'Idempotency-Key': `conformance-${randomUUID()}` };
        const body = { to: ctx.config.to, fromNumberId: number.id, outboundInstruction: CALL_INSTRUCTION, maxCallDurationSeconds: 60 };
        const first = await ctx.send(call, { body, headers });
        if (!ctx.expect(first.status === 201, `First attempt: ${first.status} (201 required for a fresh call).`, first)) return;
        let replay = await ctx.send(call, { body, headers });
        // 409 while the original is still processing; retry with the same key (part 7.2).
        for (let i = 0; replay.status === 409 && i < 5; i++) {
          await new Promise((r) => setTimeout(r, 1000));
          replay = await ctx.send(call, { body, headers });
        }
        if (!ctx.expect(replay.status === 200, `Replay with the same key: ${replay.status} (200 required).`, replay)) return;
        const firstId = (first.body as { id?: unknown } | undefined)?.id;
        const replayId = (replay.body as { id?: unknown } | undefined)?.id;
        if (firstId === undefined) ctx.advisory('The call has no `id` (inferred field) to compare the replay by.', replay);
        else ctx.expect(firstId === replayId, `The replay returns call ${JSON.stringify(replayId)}; the original was ${JSON.stringify(firstId)}.`, replay);
      },
    });
  }
  return scenarios;
}
