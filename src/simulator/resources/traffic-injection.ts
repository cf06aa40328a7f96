// Traffic injection (parts 2, 4.5, 6): the service's own helpers under `/api/v1/test/*` inject
// internal traffic (`source` `internal`) into an account, as if a carrier had delivered it. An
// injected inbound message is recorded with `source` `internal`, listed, and emitted as
// `message.received` once per line of the account it arrives on (once per line in a group).
import type { ResourceModule } from '../context.js';
import type { MessageChannel } from '../records.js';
import { findNumber } from './numbers.js';
import { receiveMessage } from './messages.js';

export const trafficInjectionModule: ResourceModule = {
  name: 'traffic-injection',
  parts: '2, 4.5, 6',
  handlers: {
    injectTestInboundMessage(ctx) {
      const { account, body } = ctx;
      const line = findNumber(account, { number: body.to });
      if (!line) return ctx.documented(404, 'notYourNumber');
      const group = body.groupId === undefined ? undefined : account.groups.find((g) => g.id === body.groupId);
      if (body.groupId !== undefined && !group) return ctx.documented(404, 'noSuchGroup');
      // A named channel must be one the line carries (an SMS on an iMessage number is its SMS fallback).
      const channel = body.channel as MessageChannel | undefined;
      if (channel !== undefined && !group) {
        const carries = channel === 'whatsapp' ? line.whatsapp !== undefined && line.whatsapp !== null : line.capabilities.includes(channel);
        if (!carries) return ctx.documented(400, 'invalidBody');
      }
      const records = receiveMessage(ctx, account, {
        line,
        from: String(body.from),
        body: typeof body.body === 'string' ? body.body : '',
        ...(channel !== undefined ? { channel } : {}),
        ...(group ? { group } : {}),
        source: 'internal',
      });
      // The message on the line named by `to` (on a group, the first of the account's lines).
      return ctx.json(201, records.find((r) => r.phoneNumberId === line.id) ?? records[0]!);
    },
  },
};
