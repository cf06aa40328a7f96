// Part 7 (and 4.5): the message-send validation errors are deterministic, each a 400 with its own
// text. Two are sent, each with nothing to deliver even where a deployment wrongly accepted it:
// no recipient at all (neither `to` nor `groupId`, from the account's own line), and a group that
// cannot exist. The texts are the contract's named examples of sendMessage's 400, not copied here.
import { documentedResponse, findOperation, type Json, type Operation } from '../description.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import { nonexistentId } from '../policy.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { MESSAGE_BODY } from './write-helpers.js';

/** The `error` text of sendMessage's named 400 example `name`, when the contract has it. */
function documentedText(ctx: ScenarioContext, op: Operation, name: string): string | undefined {
  const examples = documentedResponse(ctx.env.document, op, 400)?.response?.content?.['application/json']?.examples ?? {};
  const example = resolveRef(ctx.env.document, examples[name]) as Json | undefined;
  return typeof example?.value?.error === 'string' && example['x-inferred'] !== true ? example.value.error : undefined;
}

export function messageSendErrorScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, 'sendMessage');
  if (!op) return [];
  return [
    {
      operationId: 'sendMessage',
      check: 'message-send-error-texts',
      part: '4.5, 7',
      level: 'contract',
      title: 'a send with no recipient, and one to a group that cannot exist, answer 400 with their documented texts (parts 4.5, 7)',
      async run(ctx) {
        const cases: Array<{ example: string; what: string; body: () => Promise<Json | undefined> }> = [
          {
            example: 'toXorGroupId',
            what: 'A send with neither `to` nor `groupId`, from the account\'s line',
            body: async () => {
              const line = await ctx.env.fixtures.firstNumber();
              return line ? { fromNumberId: line.id, body: MESSAGE_BODY } : undefined;
            },
          },
          {
            example: 'noSuchGroup',
            what: 'A send to a group that cannot exist',
            body: async () => ({ groupId: nonexistentId(), body: MESSAGE_BODY }),
          },
        ];
        let judged = 0;
        for (const { example, what, body } of cases) {
          const text = documentedText(ctx, op, example);
          const sent = await body();
          if (text === undefined || sent === undefined) continue;
          judged++;
          const ex = await ctx.send(op, { body: sent });
          const error = (ex.body as { error?: unknown } | undefined)?.error;
          const ok = ex.status === 400 && error === text;
          ctx.record(
            ok ? 'pass' : 'fail',
            ok ? `${what}: 400 "${text}", as documented.` : `${what}: expected 400 "${text}", got ${ex.status} ${JSON.stringify(error)}.`,
            ex,
            ctx.scenario.check,
            ctx.scenario.part,
            ok ? {} : { expected: { status: 400, error: text }, actual: { status: ex.status, error } },
          );
        }
        if (judged === 0) ctx.skip('The contract names none of these texts (sendMessage 400 examples toXorGroupId, noSuchGroup), or the account lists no number to send from.');
      },
    },
  ];
}
