// Accounts and keys (parts 2, 5.1, 5.3). Every `Bearer sk_live_…` key opens its own account,
// created on first use from the seed, so parallel test runs with different keys never meet;
// under `--strict-keys` only the keys the sign-up issued or the seed names open one. A key of a
// deleted account answers 401 for good.
import type { ResourceModule, RuleContext } from './context.js';
import { copyWithoutPrototypes, dict, type AccountState } from './state.js';
import type { AccountSeed, NamedAccountSeed, SeedFile } from './seed.js';
import type { JsonObject } from './types.js';

/** The prefix every key begins with, read from the contract's `SignedIn.apiKey` pattern (part 5.1). */
export function apiKeyPrefix(ctx: Pick<RuleContext, 'contract'>): string {
  const pattern = String(ctx.contract.schema('SignedIn').properties?.apiKey?.pattern ?? '^sk_live_');
  return pattern.replace(/^\^/, '');
}

/** The key of `Authorization: Bearer <key>`, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  return header ? /^Bearer (\S+)$/.exec(header)?.[1] : undefined;
}

/**
 * Whether `Authorization` holds a key that opens an account (part 5.1), without opening one: a
 * `Bearer sk_live_…` key that was not revoked, and under `--strict-keys` one the sign-up issued or
 * the seed names. Every way the mock answers asks this first (pipeline.ts), so no answer reaches
 * a request the mock would refuse.
 */
export function acceptsKey(ctx: Pick<RuleContext, 'contract' | 'state' | 'options'>, header: string | undefined): boolean {
  const key = bearerKey(header);
  const prefix = apiKeyPrefix(ctx);
  if (!key || !key.startsWith(prefix) || key.length === prefix.length) return false;
  if (Object.hasOwn(ctx.state.keys, key)) return true;
  return !Object.hasOwn(ctx.state.revokedKeys, key) && !ctx.options.strictKeys;
}

export function authenticate(ctx: RuleContext, header: string | undefined, create: (key: string) => AccountState): AccountState | undefined {
  const key = bearerKey(header);
  const prefix = apiKeyPrefix(ctx);
  if (!key || !key.startsWith(prefix) || key.length === prefix.length) return undefined;
  const accountId = ctx.state.keys[key];
  if (accountId) return ctx.state.accounts[accountId];
  if (ctx.state.revokedKeys[key] || ctx.options.strictKeys) return undefined;
  return create(key);
}

/** A key as `GET /api/v1/account` shows it: a preview, never the full value (part 5.3), in the examples' form. */
export function keyPreview(ctx: Pick<RuleContext, 'contract'>, key: string): string {
  return `${apiKeyPrefix(ctx)}…${key.slice(-4)}`;
}

/** A new key, as the sign-up issues it. */
export function issueKey(ctx: RuleContext): string {
  return `${apiKeyPrefix(ctx)}${ctx.ids.next('').toLowerCase()}`;
}

const copy = copyWithoutPrototypes;

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
