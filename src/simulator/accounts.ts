// Accounts and keys (parts 2, 5.1, 5.3). Every `Bearer sk_live_…` key opens its own account,
// created on first use from the seed, so parallel test runs with different keys never meet;
// under `--strict-keys` only the keys the sign-up issued or the seed names open one. A key of a
// deleted account answers 401 for good.
import { isKeyDigest, keyDigest, keyPrefix, wellFormedKey } from '../contract/api-key.js';
import type { ResourceModule, RuleContext } from './context.js';
import { copyWithoutPrototypes as copy, dict, type AccountState } from './state.js';
import type { AccountSeed, NamedAccountSeed, SeedFile } from './seed.js';
import type { JsonObject } from './types.js';

/**
 * The key of `Authorization` when it opens an account (part 5.1), without opening one: a
 * well-formed key that was not revoked, and under `--strict-keys` one the sign-up issued or the
 * seed names. The pipeline asks this once per request, before any answer (pipeline.ts).
 */
export function acceptedKey(ctx: Pick<RuleContext, 'contract' | 'state' | 'options'>, header: string | undefined): string | undefined {
  const key = wellFormedKey(header, keyPrefix(ctx.contract.document));
  if (key === undefined) return undefined;
  if (Object.hasOwn(ctx.state.keys, key)) return key;
  // A key a snapshot brought back is kept as its digest (src/store/snapshots.ts) until it is used.
  const digest = keyDigest(key);
  if (Object.hasOwn(ctx.state.keys, digest)) return key;
  const revoked = Object.hasOwn(ctx.state.revokedKeys, key) || Object.hasOwn(ctx.state.revokedKeys, digest);
  return !revoked && !ctx.options.strictKeys ? key : undefined;
}

/**
 * The account an accepted key opens: its own, or a new one from the seed on first use. A key kept
 * as its digest (a snapshot brought back) opens its account and is kept as itself from then on.
 */
export function openAccount(ctx: RuleContext, key: string, create: (key: string) => AccountState): AccountState {
  const accountId = ctx.state.keys[key];
  if (accountId) return ctx.state.accounts[accountId]!;
  const digest = keyDigest(key);
  const savedId = ctx.state.keys[digest];
  const saved = savedId ? ctx.state.accounts[savedId] : undefined;
  if (!saved) return create(key);
  delete ctx.state.keys[digest];
  ctx.state.keys[key] = saved.id;
  saved.keys = saved.keys.map((kept) => (kept === digest ? key : kept));
  return saved;
}

/** A key as `GET /api/v1/account` shows it: a preview, never the full value (part 5.3), in the examples' form. */
export function keyPreview(ctx: Pick<RuleContext, 'contract'>, key: string): string {
  return `${keyPrefix(ctx.contract.document)}…${isKeyDigest(key) ? key.slice('sha256:'.length + 44) : key.slice(-4)}`;
}

/** A new key of `account`, as the sign-up issues it. */
export function issueKey(ctx: RuleContext, account: AccountState): string {
  const key = `${keyPrefix(ctx.contract.document)}${ctx.ids.next('').toLowerCase()}`;
  addKey(ctx, account, key);
  return key;
}

/**
 * A new account. `named` is a seed account; an account opened by an unknown key starts from the
 * seed's default; an account made by the sign-up (an email, no key yet) starts empty and free.
 */
export function createAccountState(
  ctx: RuleContext,
  modules: readonly ResourceModule[],
  seed: SeedFile,
  init: { email: string | null; key?: string; named?: NamedAccountSeed },
): AccountState {
  // A named seed account starts from the seed's default (the demo seed) and replaces what it gives.
  const start: AccountSeed = init.named ? { ...(seed.default ?? {}), ...init.named } : init.email === null ? (seed.default ?? {}) : {};
  const newest = <T>(list: T[] | undefined): T[] => copy(list ?? []).reverse();
  const account: AccountState = {
    id: ctx.ids.next('acct_'),
    email: init.email,
    createdAt: ctx.nowIso,
    keys: [],
    account: { maxCallDurationSeconds: null, ...copy(start.account ?? {}) },
    paid: start.paid ?? false,
    balance: start.balance ?? 0,
    numbers: newest(start.numbers),
    messages: newest(start.messages),
    calls: newest(start.calls).map((call) => ({ ...call, id: call.id ?? ctx.ids.next('call_') })),
    groups: copy(start.groups ?? []),
    webhooks: copy(start.webhooks ?? []),
    billing: {
      subscription: copy(start.subscription ?? null),
      paymentMethods: copy(start.paymentMethods ?? []),
      deposits: copy(start.deposits ?? []),
      activity: newest(start.activity),
      invoices: copy(start.invoices ?? dict()),
    },
    tenDlc: copy(start.tenDlc ?? dict()),
    idempotency: dict(),
    meta: dict(),
    daily: dict(),
    events: [],
    extra: dict(),
  };
  ctx.state.accounts[account.id] = account;
  if (init.email) ctx.state.emails[init.email] = account.id;
  for (const key of init.named?.keys ?? (init.key ? [init.key] : [])) addKey(ctx, account, key);
  for (const module of modules) module.seed?.(ctx, account, start as JsonObject);
  return account;
}

export function addKey(ctx: RuleContext, account: AccountState, key: string): void {
  account.keys.push(key);
  ctx.state.keys[key] = account.id;
}
