// The mock's control surface (spec/mock-control.yaml, bundled to generated/mock-control.json):
// what no operation of the service can drive. Both transports route `/__mock/...` here, after
// validating the request against that description. Everything it does goes through the store
// (src/store/store.ts), so with a store shared by several processes a reset, a clock move, a wallet or a
// snapshot acts on the whole mock, whichever process is asked.
import { bearerKey, keyDigest } from '../contract/api-key.js';
import { contractValidator, type ContractValidator } from '../contract/contract-validator.js';
import { operationMatcher, type JsonObject } from '../contract/operations.js';
import { simContract, type SimContract } from '../simulator/contract.js';
import { answeredInfo, mib, ownsSnapshot, SNAPSHOT_NAME, SnapshotLimit } from '../store/snapshots.js';
import { CONTROL_TOKEN_HEADER } from '../delivery/control-paths.js';
import { completeCheckout } from '../simulator/resources/billing.js';
import { readableFieldErrors } from '../simulator/field-errors.js';
import { unauthorized } from '../simulator/respond.js';
import type { SimRules, SimWatch } from '../simulator/simulator.js';
import type { MaybePromise, SimStore, SnapshotListing } from '../store/store.js';
import type { SimRequest, SimResponse } from '../simulator/types.js';

export interface ControlSurface {
  readonly contract: SimContract;
  /** The answer to a `/__mock/...` request, or undefined when the path is not the control surface's. */
  handle(request: SimRequest): MaybePromise<SimResponse> | undefined;
}

/** The per-key recording switch (`/__mock/recording`), where the mock records (src/recording/). */
export interface RecordingSwitch {
  /** Starts (or renames) the key's recording; its name and steps, or undefined when no more may be kept. */
  start(key: string, name: string | undefined): { recording: string; steps: number } | undefined;
  /** The key's recording as an Arazzo document, or undefined when it is not recorded. */
  document(key: string): unknown;
  /** Ends the key's recording and gives its document, or undefined. */
  stop(key: string): unknown;
}

/** The last time a `date-time` with a four-digit year says (spec/mock-control.yaml, AdvanceClockRequest). */
const LAST_DATE_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** `value`, or what it resolves with, given to `then` (synchronous stores stay synchronous). */
function after<T, R>(value: MaybePromise<T>, then: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * `descriptions`: what `GET /__mock/descriptions/{file}` serves, by file name (the contract and
 * this control description), so a recording names them at the mock that made it.
 */
export function controlSurface(simulator: SimWatch, store: SimStore, document: JsonObject, descriptions: Readonly<Record<string, JsonObject>>, recordings?: RecordingSwitch): ControlSurface {
  const contract = simContract(document);
  const match = operationMatcher(document);
  let validator: ContractValidator | undefined;

  const clock = (): MaybePromise<SimResponse> =>
    after(store.clock(), ({ now, offsetMs }) => ({ status: 200, body: { now: new Date(now).toISOString(), offsetSeconds: offsetMs / 1000 } }));
  const noSnapshot = (name: string): SimResponse => ({ status: 404, body: { error: `No snapshot named ${name}.` } });

  /** Runs `fn` on the account the request's key opens; 401 (the documented one) when it opens none. */
  function onAccount(request: SimRequest, operationId: string, violations: readonly unknown[], fn: (sim: SimRules, account: NonNullable<ReturnType<SimRules['accountForKey']>>) => SimResponse): MaybePromise<SimResponse> {
    const key = bearerKey(request.headers.authorization);
    return store.run({ ...(key ? { key } : {}) }, (sim) => {
      const account = sim.accountForKey(key);
      if (!account) return unauthorized(contract, operationId, request.headers.authorization);
      return violations.length > 0 ? readableFieldErrors(request, request.violations) : fn(sim, account);
    });
  }

  const notYours = (listing: Pick<SnapshotListing, 'name' | 'scope'>): SimResponse =>
    listing.scope === 'all'
      ? { status: 403, body: { error: `The snapshot ${listing.name} is of every account: it needs the control token in ${CONTROL_TOKEN_HEADER}, or, on a mock without one, a program of this machine (not a web page).` } }
      : { status: 403, body: { error: `The snapshot ${listing.name} is of one account: only that account's key (Authorization: Bearer) or the control token (${CONTROL_TOKEN_HEADER}) reads, restores, replaces or deletes it.` } };

  /** The refusal of a snapshot the shelf cannot keep, naming what the asker may delete to make room; any other error is thrown on. */
  function tooMuch(error: unknown, mine: readonly SnapshotListing[]): SimResponse {
    if (!(error instanceof SnapshotLimit)) throw error;
    if (error.bound.kind === 'count') return { status: 409, body: { error: error.message } };
    const largest = [...mine].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    const hint = largest.length > 0 ? ` Yours, largest first: ${largest.map((listing) => `DELETE /__mock/snapshots/${listing.name} (${mib(listing.bytes)})`).join(', ')}.` : ' None of them is yours: ask whoever runs the mock (its control token) to delete some.';
    return { status: 409, body: { error: `${error.message.replace(/: delete one first.*$/, ': delete some first.')}${hint}` } };
  }

  function snapshots(operationId: string, request: SimRequest, params: Record<string, string>): MaybePromise<SimResponse> {
    const name = params.name ?? '';
    // The name is a path segment and a file name: the description's pattern, checked here too.
    if (operationId !== 'mockListSnapshots' && !SNAPSHOT_NAME.test(name)) {
      return { status: 400, body: { error: { fieldErrors: { name: ['Must be letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit.'] } } } };
    }
    // A save with an `Authorization` that carries no key is the documented 401, not a save of every account.
    if (operationId === 'mockSaveSnapshot' && request.headers.authorization !== undefined && bearerKey(request.headers.authorization) === undefined) return unauthorized(contract, operationId, request.headers.authorization);
    // Who may touch which snapshot (issue 39): one account's, only with one of that account's keys or
    // the control token (an in-process caller holds it); every account's, with the token, or where
    // the mock has none, a program of this machine (`machine`, never a page: control-access.ts).
    const key = bearerKey(request.headers.authorization);
    const proof = request.controlProof;
    const token = proof === 'process' || proof === 'token';
    const may = (listing: Pick<SnapshotListing, 'scope' | 'owners'>): boolean => (listing.scope === 'all' ? proof !== undefined : token || ownsSnapshot(listing, key));
    return after(store.snapshots.list(), (listings): MaybePromise<SimResponse> => {
      const mine = listings.filter(may);
      if (operationId === 'mockListSnapshots') return { status: 200, body: { snapshots: mine.map(answeredInfo) } };
      const listing = listings.find((entry) => entry.name === name);
      if (operationId !== 'mockSaveSnapshot') {
        if (!listing) return noSnapshot(name);
        if (!may(listing)) return notYours(listing);
      }
      switch (operationId) {
        case 'mockSaveSnapshot': {
          // With a key: that key's account, which the key must open; without: every account.
          const wanted = { scope: key === undefined ? ('all' as const) : ('account' as const), owners: key === undefined ? [] : [keyDigest(key)] };
          if (!may(wanted)) return notYours({ name, scope: wanted.scope });
          if (listing && !may(listing)) return notYours(listing);
          const saving = (): MaybePromise<SimResponse> => {
            try {
              const saved = after(store.snapshots.save(name, key), (info): SimResponse => ({ status: 201, body: answeredInfo(info) }));
              return saved instanceof Promise ? saved.catch((error: unknown) => tooMuch(error, mine)) : saved;
            } catch (error) {
              return tooMuch(error, mine);
            }
          };
          if (key === undefined) return saving();
          return after(
            store.run({ key }, (sim) => sim.accountForKey(key) !== undefined),
            (opens): MaybePromise<SimResponse> => (opens ? saving() : unauthorized(contract, operationId, request.headers.authorization)),
          );
        }
        case 'mockRestoreSnapshot':
          return after(store.snapshots.restore(name, listing!.scope === 'account' && ownsSnapshot(listing!, key) ? key : undefined), (info) => (info ? { status: 200, body: answeredInfo(info) } : noSnapshot(name)));
        case 'mockGetSnapshot':
          return after(store.snapshots.get(name), (file) => (file ? { status: 200, body: file } : noSnapshot(name)));
        case 'mockDeleteSnapshot':
          return after(store.snapshots.remove(name), (had) => (had ? { status: 200, body: { deleted: name } } : noSnapshot(name)));
        default:
          return { status: 404, body: { error: `No control operation ${operationId}.` } };
      }
    });
  }

  return {
    contract,
    handle(request) {
      const matched = match(request.method, request.pathname);
      if (!matched) return request.pathname.startsWith('/__mock/') ? { status: 404, body: { error: `No control operation ${request.method} ${request.pathname}.` } } : undefined;
      validator ??= contractValidator(document);
      request.violations.push(...validator.request(matched.operationId, request));
      const { violations } = request;
      const body = (request.body ?? {}) as JsonObject;
      if (violations.length > 0 && !contract.needsKey(matched.operationId)) return readableFieldErrors(request, violations);
      switch (matched.operationId) {
        case 'mockAbout':
          // The announcement the conformance suite reads: what accepts a key is said, not guessed.
          return { status: 200, body: { mock: 'numbers-api', keys: simulator.options.strictKeys ? 'strict' : 'any' } };
        case 'mockReset':
          return after<void, SimResponse>(store.reset(), () => ({ status: 200, body: { reset: true } }));
        case 'mockGetClock':
          return clock();
        case 'mockGetDescription':
          // Where a recording names the descriptions, so Respect reads them from any folder (src/recording/recording-files.ts).
          if (Object.hasOwn(descriptions, matched.params.file ?? '')) return { status: 200, body: descriptions[matched.params.file!] };
          return { status: 404, body: { error: `No description named ${matched.params.file}: ${Object.keys(descriptions).join(' or ')}.` } };
        case 'mockAdvanceClock':
          return after(store.clock(), ({ now }) =>
            now + Number(body.seconds) * 1000 > LAST_DATE_TIME
              ? { status: 400, body: { error: { fieldErrors: { seconds: [`Would move the clock past ${new Date(LAST_DATE_TIME).toISOString()}; at most ${Math.floor((LAST_DATE_TIME - now) / 1000)} more seconds.`] } } } }
              : after<void, SimResponse>(store.advance(Number(body.seconds) * 1000), clock),
          );
        case 'mockCompleteCheckout':
          return onAccount(request, matched.operationId, violations, (sim, account) => {
            const done = sim.withContext((ctx) => completeCheckout(ctx, account, { clientSecret: body.clientSecret, amount: body.amount }));
            return done.status === 404 ? { status: 404, body: contract.example('mockCompleteCheckout', 404, 'noCheckout') } : done;
          });
        case 'mockSetWallet':
          return onAccount(request, matched.operationId, violations, (sim, account) =>
            sim.withContext(() => {
              account.balance = Number(body.balance);
              return { status: 200, body: { balance: account.balance } };
            }),
          );
        case 'mockStartRecording':
        case 'mockGetRecording':
        case 'mockStopRecording':
          // The switch is this process's recorder (src/recording/): the key's account is checked in the store.
          return onAccount(request, matched.operationId, violations, () => {
            const key = bearerKey(request.headers.authorization)!;
            if (!recordings) return { status: 404, body: { error: 'This mock does not record.' } };
            if (matched.operationId === 'mockStartRecording') {
              const started = recordings.start(key, typeof body.name === 'string' ? body.name : undefined);
              return started ? { status: 200, body: started } : { status: 400, body: { error: 'The mock keeps no more recordings (at most 1,000 accounts at once).' } };
            }
            const recorded = matched.operationId === 'mockGetRecording' ? recordings.document(key) : recordings.stop(key);
            return recorded ? { status: 200, body: recorded } : { status: 404, body: contract.example(matched.operationId, 404, 'notRecording') };
          });
        default:
          return snapshots(matched.operationId, request, matched.params);
      }
    },
  };
}
