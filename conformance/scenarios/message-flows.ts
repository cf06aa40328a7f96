// Send, then list (parts 4.5 and 8): two messages created one after the other answer 201 with
// ids, and the messages list then holds both, newest first: the second before the first. The
// order is judged by those ids, since a message record has no documented timestamp (part 2).
// The messages are injected through the test helper where the deployment has it (free, internal
// traffic), else sent to `--to`.
import { findOperation, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { idOf, MESSAGE_BODY, needFields, senderNumber, testHelperAvailable, WRITES_LOCK } from './write-helpers.js';

const CHECK = 'message-send-then-list';

interface Created {
  id: string;
  ex: Exchange;
}

async function createTwo(ctx: ScenarioContext, create: (n: number) => Promise<Exchange>, what: string): Promise<Created[] | undefined> {
  const created: Created[] = [];
  for (const n of [1, 2]) {
    const ex = await create(n);
    if (!ctx.expect(ex.status === 201, `${what} ${n} of 2: ${ex.status} (201 required for a fresh creation, part 4).`, ex)) return undefined;
    const id = idOf(ex.body);
    if (!id) {
      ctx.advisory(`${what} ${n} of 2 carries no \`id\` (the response fields are inferred), so the list order cannot be judged.`, ex);
      return undefined;
    }
    created.push({ id, ex });
  }
  return created;
}

export function messageFlowScenarios(operations: Operation[]): ScenarioDraft[] {
  const list = findOperation(operations, 'listMessages');
  const inject = findOperation(operations, 'injectTestInboundMessage');
  const send = findOperation(operations, 'sendMessage');
  if (!list || (!inject && !send)) return [];
  return [
    {
      id: `listMessages/${CHECK}`,
      operationId: 'listMessages',
      check: CHECK,
      part: '4.5, 8',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'two messages answer 201 with ids, then list newest first by those ids: the second before the first (parts 4.5, 8)',
      provokes: ['injectTestInboundMessage 201', 'sendMessage 201', 'listMessages 200'],
      rules: [CHECK, 'messages-newest-first', 'message-source-internal'],
      async run(ctx) {
        const viaHelper = await testHelperAvailable(ctx, inject);
        const number = await senderNumber(ctx);
        let created: Created[] | undefined;
        if (viaHelper && inject) {
          needFields(ctx, inject, ['to', 'from']);
          if (!number.number) return ctx.skip('The listed number has no `number` to inject to.');
          ctx.reserveSends(2, 'send, then list (two injected test messages)');
          created = await createTwo(
            ctx,
            (n) => ctx.write(inject, { body: { to: number.number, from: ctx.config.to, body: `${MESSAGE_BODY} (${n} of 2)` } }),
            'Injected test message',
          );
        } else {
          if (!send) return ctx.skip('The deployment has no test helper and the description no sendMessage.');
          needFields(ctx, send, ['to', 'fromNumberId', 'body']);
          ctx.reserveSends(2, 'send, then list (two messages to --to)');
          created = await createTwo(
            ctx,
            (n) => ctx.write(send, { body: { to: ctx.config.to, fromNumberId: number.id, body: `${MESSAGE_BODY} (${n} of 2)` } }),
            'Message to --to',
          );
        }
        if (!created) return;
        const [first, second] = created as [Created, Created];
        if (!ctx.expect(first.id !== second.id, first.id !== second.id ? 'The two messages have ids of their own.' : `Both messages were answered the same id (${first.id}); each creation issues its own (part 2).`, second.ex)) return;
        const ex = await ctx.send(list, {});
        if (!ctx.expect(ex.status === 200, `The messages list answered ${ex.status} (200 required).`, ex)) return;
        const records = listRecords(ex.body)?.records;
        if (!records) return ctx.advisory('No list of records found in the answer (the list shape is inferred), so the order cannot be judged.', ex);
        const at = (id: string) => records.findIndex((r) => r.id === id);
        const [i1, i2] = [at(first.id), at(second.id)];
        for (const [label, c, i] of [['first', first, i1], ['second', second, i2]] as const) {
          if (i < 0) ctx.fail(`The ${label} message (${c.id}) is not among the ${records.length} listed, though the list holds the 100 most recent (part 8).`, ex);
        }
        if (i1 < 0 || i2 < 0) return;
        ctx.judging('messages-newest-first');
        // The places go in the facts, not the words: they change from run to run, the finding's id must not.
        if (i2 < i1) ctx.pass(`Newest first: the second message (${second.id}) is listed at ${i2}, before the first (${first.id}) at ${i1}.`, ex);
        else ctx.record('fail', `Not newest first: the second message (${second.id}) is listed after the first (${first.id}) (part 8).`, ex, CHECK, undefined, { expected: { second: 'before the first' }, actual: { first: i1, second: i2 } });
        // What each creation answered is what the list holds for it (part 4.5): the same message.
        ctx.judging(CHECK);
        for (const c of created) {
          const answered = c.ex.body as Record<string, unknown>;
          const record = records[at(c.id)]!;
          for (const field of ['body', 'from', 'to', 'channel']) {
            if (answered?.[field] !== undefined) ctx.same(`Message ${c.id}'s ${field}`, { ex: c.ex, at: field, value: answered[field] }, { ex, at: `the record ${c.id}'s ${field}`, value: record[field] }, '4.5');
          }
        }
        if (viaHelper) {
          ctx.judging('message-source-internal');
          for (const c of created) {
            const source = records[at(c.id)]?.source;
            ctx.record(source === 'internal' ? 'pass' : 'fail', `Injected message ${c.id} is listed with source ${JSON.stringify(source)} (internal required for test injections, parts 2, 4.5).`, ex, CHECK, '2, 4.5');
          }
        }
      },
    },
  ];
}
