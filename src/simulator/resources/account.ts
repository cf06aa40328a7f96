// The account (parts 2 and 4.2): read, the account-wide call cap, deletion.
import { keyPreview } from '../accounts.js';
import { dropJobs } from '../job-queue.js';
import type { RequestContext, ResourceModule } from '../context.js';
import type { AccountState } from '../state.js';
import { aboveFreeCeiling, accountLimits } from './free-account.js';

/** The account record as `GET /api/v1/account` answers it: `limits` and key previews derived from state. */
export function accountRecord(ctx: Pick<RequestContext, 'contract'>, account: AccountState) {
  return {
    ...account.account,
    limits: accountLimits(ctx, account),
    apiKeys: account.keys.map((key) => ({ preview: keyPreview(ctx, key) })),
  };
}

export const accountModule: ResourceModule = {
  name: 'account',
  parts: '2, 4.2',
  reads: ['getAccount'],
  handlers: {
    getAccount: (ctx) => ctx.json(200, accountRecord(ctx, ctx.account)),

    updateAccount(ctx) {
      // 60..3600 is the schema's (the contract gate refuses it before this); a free account's
      // ceiling applies to an explicit value (part 8).
      const seconds = ctx.body.maxCallDurationSeconds;
      if (aboveFreeCeiling(ctx, ctx.account, seconds)) return ctx.documented(400, 'aboveFreeCeiling');
      // Null clears the account cap, falling back to the global default (part 4.2).
      if ('maxCallDurationSeconds' in ctx.body) ctx.account.account.maxCallDurationSeconds = seconds ?? null;
      return ctx.json(200, accountRecord(ctx, ctx.account));
    },

    deleteAccount(ctx) {
      // Permanent: every number released, every key ends (part 4.2); the verified phone number
      // stays bound (part 3: "bound to one account permanently").
      const { state, account } = ctx;
      for (const number of account.numbers) delete state.serviceNumbers[number.number];
      account.numbers = [];
      for (const key of account.keys) {
        delete state.keys[key];
        state.revokedKeys[key] = true;
      }
      if (account.email && state.emails[account.email] === account.id) delete state.emails[account.email];
      dropJobs(state, (job) => job.accountId === account.id);
      delete state.accounts[account.id];
      return ctx.documented(200);
    },
  },
};
