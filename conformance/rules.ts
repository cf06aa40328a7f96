// Every rule of the interface specification a deployment could break that relates a request to
// its answer, or an answer to the state earlier requests made, part by part: the scenario that
// judges it and at which level, or why the suite cannot judge it on a deployment and what would
// let it. conformance/README.md's table "What it checks, rule by rule, and what it cannot see" is
// generated from this list (`npm run guides`); test/conformance-rules.test.ts holds the list and
// the suite's scenarios to each other (a scenario names its rows in `Scenario.rules`, a finding
// the row it judged in `Finding.rule`) and shows every checked row failing against a deployment
// stand-in that breaks it.
import type { FIXTURE_ACCOUNTS, FixtureAccount, Level } from './config.js';

type FixtureOption = (typeof FIXTURE_ACCOUNTS)[FixtureAccount]['option'];

/** Why a rule is not judged on a deployment: a stable key. */
export type NotCheckedReason = 'needs-fixture-account' | 'unsafe' | 'unpublished' | 'not-shown' | 'not-observable' | 'cannot-provoke' | 'takes-time' | 'another-address' | 'not-yet';

/** Each reason in words, as the table says it. */
export const NOT_CHECKED_REASONS: Readonly<Record<NotCheckedReason, string>> = {
  'needs-fixture-account': 'needs a fixture account: an account the team sets aside for it, given by an option',
  unsafe: 'it would spend, charge, delete, provision or reach a person',
  unpublished: 'the value it turns on is not published',
  'not-shown': 'the specification does not show what it would be judged on',
  'not-observable': 'nothing the API answers shows it',
  'cannot-provoke': 'no request can cause it on a deployment',
  'takes-time': 'it takes hours or a billing period',
  'another-address': 'it is about another address than the one under test',
  'not-yet': 'no scenario judges it yet',
};

export interface Rule {
  /** Stable key: `Finding.rule`, `Scenario.rules`, the README row. */
  id: string;
  /** The part (and section) of the interface specification it comes from: `4.3`, `4.4, 8`. */
  part: string;
  rule: string;
  /**
   * Judged on any deployment at `level` (and above): by these scenarios (ids; `*\/<name>` is
   * every `<operationId>/<name>[/<variant>]`), or by the generic check `everyAnswer` on every answer.
   * `when`: what the account must hold for it to be judged (`where ...`, `with ...`). `advisory`: why a break is only ever
   * reported as advisory. `fixture`: judged only on a fixture account the team sets aside, named by
   * this option (config.ts, FIXTURE_ACCOUNTS); without it the run cannot judge it (`needs-fixture-account`).
   */
  checked?: { level: Level; by?: readonly string[]; everyAnswer?: string; when?: string; advisory?: string; fixture?: FixtureOption };
  /** Why it is not judged on a deployment, and what would let it be. */
  notChecked?: { reason: NotCheckedReason; why: string; unlock?: string };
  /** Judged on the package's mock, on accounts the suite signs up there, by these scenarios. */
  onMock?: readonly string[];
}

const contract = (by: string[], extra: { when?: string; advisory?: string } = {}) => ({ level: 'contract' as const, by, ...extra });
const writes = (by: string[], extra: { when?: string; advisory?: string } = {}) => ({ level: 'writes' as const, by, ...extra });
/** Judged only with a fixture account's option (`--empty-wallet-key`, `--free-account-key`). */
const withFixture = (level: Level, by: string[], fixture: FixtureOption, when: string) => ({ level, by, fixture, when: `with \`${fixture}\`${when}` });
const everyAnswer = (check: string) => ({ level: 'contract' as const, everyAnswer: check });
const SIGN_UP_REACHES_A_PERSON = 'a sign-up emails and texts its codes to a person, and the codes cannot be read on a deployment';

export const RULES: readonly Rule[] = [
  // Every answer (the generic layer).
  { id: 'not-a-server-error', part: '7', rule: 'No answer is a 5xx the operation does not document.', checked: everyAnswer('not-a-server-error') },
  { id: 'status-code-conformance', part: '7', rule: 'Every status is one the operation documents.', checked: everyAnswer('status-code-conformance') },
  { id: 'content-type-conformance', part: '7', rule: 'Every body is of a documented media type (JSON).', checked: everyAnswer('content-type-conformance') },
  { id: 'response-schema-conformance', part: '2, 6, 7, 9.2', rule: 'Every body validates against its status\'s schema: the records of part 2, the error shape of part 7, the event envelope (`object` event, `version` 1) of parts 6 and 9.', checked: everyAnswer('response-schema-conformance') },
  { id: 'response-headers-conformance', part: '8', rule: 'A documented required header is present and well-formed: `Retry-After` in seconds on the lookup\'s 429 (WhatsApp spacing\'s is judged by `whatsapp-spacing`).', checked: everyAnswer('response-headers-conformance') },
  { id: 'no-full-key-in-answers', part: '5.3', rule: 'No answer carries a full-length key; only the sign-up returns one, once.', checked: everyAnswer('no-full-key-in-answers') },

  // Part 2: resources.
  { id: 'key-previews-not-full-keys', part: '2, 5.3', rule: 'The account shows each API key as a preview, never the key itself.', checked: contract(['getAccount/key-previews-not-full-keys']) },
  { id: 'ten-dlc-null-when-not-applicable', part: '2', rule: "A number's `tenDlc` is null where 10DLC does not apply: a number outside the US (+1), or one with the `imessage` capability.", checked: contract(['listNumbers/ten-dlc-null-when-not-applicable'], { when: 'where the account holds such a number' }) },
  { id: 'ten-dlc-null-not-payg', part: '2', rule: "`tenDlc` is null on an account that is not pay-as-you-go and has no registration yet.", notChecked: { reason: 'not-shown', why: 'what makes an account "not pay-as-you-go" and whether a number ever had a registration are not shown' } },
  { id: 'billing-modes-match-numbers', part: '2', rule: "The billing status's mode of each number is the number's own billing mode.", notChecked: { reason: 'not-shown', why: 'both field names are inferred, so a difference could only be advisory' } },
  { id: 'inbound-media-original-url-null', part: '2', rule: 'An inbound message\'s media carry `originalUrl` null.', notChecked: { reason: 'not-shown', why: "the suite cannot cause an inbound message with media: the test helper's fields are not shown" } },
  { id: 'free-account-limits-object', part: '2, 8', rule: "A free account (never topped up, never subscribed) shows `limits` as an object with its call ceiling and concurrency.", checked: withFixture('contract', ['getAccount/free-account-limits-object'], '--free-account-key', ' (an account that never topped up nor subscribed)'), onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'free-limits-lift', part: '2, 3, 8', rule: 'The first top-up or subscription lifts the free-account limits for good: `limits` is null once the account has paid.', notChecked: { reason: 'unsafe', why: 'it takes a payment' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },

  // Part 3: states and transitions.
  { id: 'sign-up-flow', part: '3, 4.1, 5.3', rule: 'Sign-up: a new address verified answers `registrationId` and no key; register-number, then verify-number create the account, answer its key once, and the `phoneNumber` answered is the line the account then lists.', notChecked: { reason: 'unsafe', why: SIGN_UP_REACHES_A_PERSON }, onMock: ['verifyPhoneNumber/sign-up-flow'] },
  { id: 'sign-up-wrong-code', part: '3, 4.1', rule: 'A wrong code at verify or verify-number on a sign-up in progress answers 401, and the step stays pending.', notChecked: { reason: 'unsafe', why: `it needs a sign-up in progress: ${SIGN_UP_REACHES_A_PERSON}` }, onMock: ['verifyPhoneNumber/sign-up-flow'] },
  { id: 'sign-up-registration-state-409', part: '4.1', rule: 'register-number and verify-number answer 409 on a registration already complete, or with no number registered yet.', notChecked: { reason: 'unsafe', why: `it needs a sign-up in progress: ${SIGN_UP_REACHES_A_PERSON}` }, onMock: ['verifyPhoneNumber/sign-up-flow'] },
  { id: 'register-number-replaces', part: '3', rule: 'register-number with the same number again re-sends the code; with another number it replaces the pending one.', notChecked: { reason: 'unsafe', why: 'each answer texts a code to a person' } },
  { id: 'phone-bound-for-good', part: '3, 4.1', rule: 'A verified phone number is bound to one account for good: registering it again answers 409.', notChecked: { reason: 'unsafe', why: SIGN_UP_REACHES_A_PERSON } },
  { id: 'provisioning-fails-502', part: '3, 4.1, 7', rule: 'verify-number answers 502 when provisioning fails, and a retry with the same `registrationId` needs no new code.', notChecked: { reason: 'cannot-provoke', why: "a provisioning failure is the service's own; the mock's test value causes one" }, onMock: ['verifyPhoneNumber/provisioning-fails-502'] },
  { id: 'subscription-state-answers', part: '3, 4.4', rule: 'Without an active subscription, cancel, resume, change and preview answer 409.', checked: contract(['previewSubscriptionChange/subscription-state-answers'], { when: 'where the account has no active subscription (read first)' }) },
  { id: 'subscription-preview-changes-nothing', part: '4.4', rule: 'A preview with an active subscription answers 200 and changes nothing: the subscription reads back the same.', checked: contract(['previewSubscriptionChange/subscription-state-answers'], { when: 'where the account has an active subscription (read first)' }) },
  { id: 'subscription-checkout-activates', part: '3, 4.4', rule: 'A subscription checkout whose invoice is paid makes the subscription active.', notChecked: { reason: 'unsafe', why: 'it takes a payment' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'subscription-cancel-resume', part: '3, 4.4', rule: 'Cancel sets `cancelAtPeriodEnd` true and coverage runs on; resume before the period ends sets it false.', notChecked: { reason: 'unsafe', why: 'it changes a paid subscription' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'subscription-change-invoiced', part: '3', rule: 'A change to another interval is prorated, invoiced at once, and clears a scheduled cancellation.', notChecked: { reason: 'unsafe', why: 'it charges' } },
  { id: 'subscription-period-end', part: '3', rule: 'A subscription cancelled at period end reverts the account to pay-as-you-go when `periodEnd` is reached.', notChecked: { reason: 'takes-time', why: 'it waits for the end of a billing period' } },
  { id: 'imessage-account-cannot-subscribe', part: '3, 4.4', rule: 'An account holding an iMessage number cannot start a subscription: the checkout answers 403.', notChecked: { reason: 'unsafe', why: 'a checkout wrongly accepted would start a subscription' }, onMock: ['submitTenDlcRegistration/mock-imessage-refusals'] },
  { id: 'call-status-events', part: '3, 6', rule: 'Each move of a call emits `call.status_changed` with the state entered and the one before; the move to Terminated carries `terminationType`.', notChecked: { reason: 'not-yet', why: 'the writes level places one call but does not follow its events (on a deployment its progress depends on the test phone; part 6 gives no timing)' } },
  { id: 'call-duration-warning', part: '3, 8', rule: 'About 30 to 40 seconds before a cap cuts a call, a warning is spoken or sent as a protocol frame.', notChecked: { reason: 'not-observable', why: 'the warning is in the call audio, not in any answer' } },
  { id: 'wallet-gating-402', part: '3, 7', rule: 'While a pay-as-you-go number\'s wallet is at or below zero, a call, an SMS or a number provisioning answers 402.', checked: withFixture('writes', ['sendMessage/wallet-gating-402'], '--empty-wallet-key', ' (an account on an empty wallet, with a pay-as-you-go line): one message to --to, to be refused; a call and a number provisioned are not asked'), onMock: ['submitTenDlcRegistration/mock-ten-dlc-answers'] },
  { id: 'wallet-fixed-not-gated', part: '3', rule: 'A FIXED number is never gated by the wallet: it sends on an empty wallet.', checked: withFixture('writes', ['sendMessage/wallet-fixed-not-gated'], '--empty-wallet-key', ', where that account holds a FIXED line: one message to --to, sent') },
  { id: 'wallet-inbound-declined', part: '3', rule: 'On an empty wallet, inbound calls to a pay-as-you-go number are declined.', notChecked: { reason: 'cannot-provoke', why: 'the suite cannot place an inbound call' } },
  { id: 'whatsapp-warm-up', part: '3, 8', rule: 'A customer-connected WhatsApp channel is `warming_up` for about 6 hours, then `ready`.', notChecked: { reason: 'takes-time', why: 'about 6 hours' } },
  { id: 'ten-dlc-submission-answers', part: '3, 4.5, 7', rule: 'A 10DLC submission meets its documented answers: 400 `tendlc_validation_failed`, 403 `tendlc_brand_not_reusable`, 404 `tendlc_brand_not_found`, 409 `tendlc_brand_not_approved`, 402 when the balance cannot pay the fee.', notChecked: { reason: 'unsafe', why: 'a submission charges the one-time fee' }, onMock: ['submitTenDlcRegistration/mock-ten-dlc-answers'] },
  { id: 'ten-dlc-reads-back', part: '2, 4.5', rule: 'A registration submitted reads back as answered: its status and brand through GET `/numbers/{id}/10dlc`, its status on the number.', notChecked: { reason: 'unsafe', why: 'a submission charges the one-time fee' }, onMock: ['submitTenDlcRegistration/mock-ten-dlc-answers'] },
  { id: 'ten-dlc-resubmission-free', part: '3, 8', rule: 'Resubmitting after a rejection is free.', notChecked: { reason: 'unsafe', why: 'the first submission charges the fee' } },
  { id: 'ten-dlc-not-applicable', part: '2, 7', rule: 'A 10DLC registration on an iMessage or non-US number answers 403 `tendlc_not_applicable`; on an account that is not pay-as-you-go, 403 `tendlc_not_available`.', notChecked: { reason: 'unsafe', why: 'a submission wrongly accepted charges the fee' }, onMock: ['submitTenDlcRegistration/mock-imessage-refusals', 'createSubscriptionCheckout/mock-billing-answers'] },

  // Part 4: endpoints.
  { id: 'auth-required', part: '4, 5.1', rule: 'Every operation but the four sign-up ones answers 401 without a key, with a malformed key, and with a well-formed key of no account.', checked: contract(['*/auth-required']) },
  { id: 'read-succeeds', part: '4, 7.1', rule: 'Every read with the key answers 200, on the ids the account\'s own lists and billing status give (a number, an invoice).', checked: contract(['*/read']) },
  { id: 'unknown-resource-404', part: '7', rule: 'An id that cannot exist on the account answers 404.', checked: contract(['*/unknown-resource-404']) },
  { id: 'negative-data-rejected', part: '7, 8', rule: 'A body its schema refuses (a number not in E.164, a call cap of 59) answers a 4xx.', checked: contract(['*/negative-data-rejected']) },
  { id: 'negative-query-rejected', part: '7', rule: 'A query parameter its schema refuses (an enum, a format) answers a 4xx.', checked: contract(['*/negative-query-rejected']) },
  { id: 'signup-needs-no-key', part: '4.1, 5.1', rule: 'The four sign-up operations need no key: an invalid body without one answers 400, not 401.', checked: contract(['*/signup-needs-no-key']) },
  { id: 'sign-up-code-refused', part: '4.1', rule: 'verify answers 401 to a code for a verification that cannot exist.', checked: contract(['verifyEmail/unknown-verification-401']) },
  { id: 'sign-up-registration-unknown', part: '4.1', rule: 'register-number and verify-number answer 409 for a registration that cannot exist.', checked: contract(['registerNumber/unknown-registration-409', 'verifyPhoneNumber/unknown-registration-409']) },
  { id: 'coupon-refused-before-code', part: '4.1, 5.4', rule: 'An invalid, inactive or used coupon is refused at sign-up before any code is sent.', notChecked: { reason: 'not-shown', why: 'its status is not shown' } },
  { id: 'email-canonical', part: '4.1', rule: 'Addresses that reach one mailbox (a `+tag`, dots in a gmail.com local part, googlemail.com) are one account, under the canonical address.', notChecked: { reason: 'unsafe', why: SIGN_UP_REACHES_A_PERSON } },
  { id: 'sign-up-attempt-limits', part: '4.1, 8', rule: 'Too many wrong codes or re-sent codes answer 429.', notChecked: { reason: 'unpublished', why: 'part 8 does not publish the attempt limits, and a sign-up reaches a person' }, onMock: ['verifyEmail/sign-up-attempt-limits'] },
  { id: 'call-duration-range', part: '4.2, 4.5, 8', rule: '`maxCallDurationSeconds` outside 60..3600 answers 400 on the account and on a number (read first, restored if accepted).', checked: contract(['updateAccount/call-duration-range', 'updateNumber/call-duration-range']) },
  { id: 'account-cap-read-your-write', part: '4.2', rule: "The account's call cap written is answered by the PATCH and read back, then restored.", checked: writes(['updateAccount/account-cap-read-your-write']) },
  { id: 'account-cap-null-clears', part: '4.2', rule: "`maxCallDurationSeconds` null clears the account's cap.", notChecked: { reason: 'not-yet', why: 'read your write sets a value and restores the original; it writes null only where the original was null' } },
  { id: 'free-call-cap-400', part: '4.2, 8', rule: 'On a free account, an explicit call cap above 300 s answers 400 on call create, number update and account update.', checked: withFixture('contract', ['updateAccount/free-call-cap-400'], '--free-account-key', ': on the account and on a number (read first, restored if accepted); on a call to --to only at `writes`') },
  { id: 'free-call-cap-clamped', part: '8', rule: "On a free account, a cap inherited from the number or account is clamped to 300 s.", notChecked: { reason: 'not-observable', why: 'no answer shows a call\'s effective cap' } },
  { id: 'call-cap-priority', part: '4.2', rule: 'The effective call cap is the call\'s, else the number\'s, else the account\'s, else the global default.', notChecked: { reason: 'not-observable', why: 'no answer shows a call\'s effective cap' } },
  { id: 'account-delete', part: '4.2', rule: 'Deleting the account is for good: its key answers 401 afterwards.', notChecked: { reason: 'unsafe', why: 'it deletes the account' }, onMock: ['verifyPhoneNumber/sign-up-flow'] },
  { id: 'team-cannot-delete', part: '4.2, 5.6', rule: 'A team member cannot delete the account.', notChecked: { reason: 'not-shown', why: 'the invitation operations are not shown' } },
  { id: 'usage-days-fallback', part: '4.3', rule: '`days` 7 and 90 are honoured; any other value gives `periodDays` 30.', checked: contract(['getUsage/usage-days-fallback']) },
  { id: 'usage-current-period-independent', part: '4.3', rule: '`currentPeriod` is independent of `days`: the same cycle whatever window is asked for.', checked: contract(['getUsage/usage-days-fallback']) },
  { id: 'usage-delta-null', part: '4.3', rule: '`deltaPct` is null when the previous equal window had no activity.', notChecked: { reason: 'not-observable', why: 'no answer shows the previous window' } },
  { id: 'checkout-answers', part: '4.4', rule: 'The checkouts answer a `clientSecret` (200), 400 for a `returnUrl` that is not a URI, 401 without a key.', notChecked: { reason: 'unsafe', why: 'a checkout wrongly accepted can charge' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'first-card-default', part: '4.4', rule: 'The first saved card becomes the default.', notChecked: { reason: 'unsafe', why: 'it saves a card' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'remove-default-promotes-next', part: '4.4', rule: 'Removing the default card makes the next card on file the default.', notChecked: { reason: 'unsafe', why: 'it removes a card' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'credits-checkout-409-subscribed', part: '4.4', rule: 'A top-up checkout answers 409 while a subscription is active.', notChecked: { reason: 'unsafe', why: 'a top-up wrongly accepted charges' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'promotion-code-400', part: '4.4, 7', rule: 'A change with an invalid, expired or inapplicable promotion code answers 400.', notChecked: { reason: 'unsafe', why: 'a change wrongly accepted could change the price' }, onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'unchanged-writes', part: '3, 4.4, 4.5', rule: 'Writes that change nothing answer 200 and read back unchanged: a number\'s cap as it is, a typing indicator cleared, the default card made the default, a change to the current interval (a no-op, its period unchanged), a ping of the account\'s own subscription.', checked: writes(['updateNumber/unchanged-writes'], { when: 'where the account holds what each needs (a card, a subscription, a webhook subscription)' }), onMock: ['createSubscriptionCheckout/mock-billing-answers'] },
  { id: 'billing-activity-limit', part: '4.4, 8', rule: 'Billing activity never holds more items than `limit`, nor more than 100 (`limit` 0 and 500 are clamped).', checked: contract(['listBillingActivity/billing-activity-limit']) },
  { id: 'billing-activity-has-more', part: '4.4', rule: '`hasMore` says whether the limit cut the ledger: true on a page of one when the ledger holds more, false when a page holds it all.', checked: contract(['listBillingActivity/billing-activity-limit'], { when: 'where the ledger holds two items or more' }) },
  { id: 'billing-activity-order', part: '4.4', rule: 'Billing activity is newest first by `occurredAt`.', checked: contract(['listBillingActivity/billing-activity-order']) },
  { id: 'billing-activity-starting-after', part: '4.4', rule: '`starting_after` returns only items strictly older than it.', checked: contract(['listBillingActivity/billing-activity-order']) },
  { id: 'billing-activity-filter', part: '4.4', rule: '`filter` `usage` and `payment-credits` list only items of those kinds.', notChecked: { reason: 'not-shown', why: 'the item `type` values are not shown' } },
  { id: 'message-send-then-list', part: '4.5, 7.4, 8', rule: 'Two messages answer 201 with ids of their own (a send is not idempotent) and are both listed as answered (body, from, to, channel).', checked: writes(['listMessages/message-send-then-list']) },
  { id: 'messages-newest-first', part: '4.5, 8', rule: 'The messages list is newest first: the second message sent before the first.', checked: writes(['listMessages/message-send-then-list']) },
  { id: 'message-source-internal', part: '2, 4.5', rule: 'Test traffic injected through `/api/v1/test/*` is listed with `source` internal.', checked: writes(['listMessages/message-send-then-list'], { when: 'where the deployment has the test helper' }) },
  { id: 'messages-filter-group', part: '4.5', rule: '`GET /api/v1/messages?groupId=` lists only messages of that group: none for a group that cannot exist.', checked: contract(['listMessages/messages-filter-group']) },
  { id: 'messages-filter-since', part: '4.5', rule: '`since` lists only messages after that time.', notChecked: { reason: 'not-shown', why: "the parameter's form is inferred and a message record has no documented timestamp" } },
  { id: 'messages-filter-direction', part: '4.5', rule: '`direction` lists only inbound or only outbound messages.', notChecked: { reason: 'not-shown', why: 'its values and the record\'s direction are not shown' } },
  { id: 'message-send-error-texts', part: '4.5, 7', rule: 'The deterministic message-send errors answer 400 with their exact text: no `to` nor `groupId` ("Provide exactly one of `to` or `groupId`."), a group that is not the account\'s ("No such group on this account.").', checked: contract(['sendMessage/message-send-error-texts']) },
  { id: 'history-list-limit-order', part: '8', rule: 'The messages and calls lists hold at most 100 records.', checked: contract(['listMessages/history-list-limit-order', 'listCalls/history-list-limit-order']) },
  { id: 'call-idempotent-replay', part: '7.2, 7.4', rule: 'A call with an `Idempotency-Key` answers 201; the same key again answers 200 with the same call, and the calls list holds it once.', checked: writes(['createCall/call-idempotent-replay']) },
  { id: 'calls-newest-first', part: '4.5, 8', rule: 'The calls list is newest first: the call placed is listed before the newest call listed before it.', checked: writes(['createCall/call-idempotent-replay'], { when: 'where the account listed a call before' }) },
  { id: 'call-409-still-running', part: '7.2', rule: 'A duplicate while the original call still runs past the wait window answers 409.', notChecked: { reason: 'unpublished', why: 'the wait window is not shown' }, onMock: ['createCall/mock-call-answers'] },
  { id: 'call-refused-no-live-call', part: '7.3', rule: 'Any non-2xx answer to a call request leaves no live call.', notChecked: { reason: 'not-observable', why: 'a refused call answers no id to look for' } },
  { id: 'number-provision', part: '4.5, 7', rule: 'A number provisioned answers 201 and is listed as answered; `whatsapp` that is not a boolean answers 400.', notChecked: { reason: 'unsafe', why: 'it provisions and charges for a number' }, onMock: ['sendMessage/mock-whatsapp-answers'] },
  { id: 'whatsapp-unavailable-503', part: '7', rule: 'A WhatsApp number asked for when none is available answers 503 `whatsapp_unavailable`.', notChecked: { reason: 'cannot-provoke', why: 'it turns on the service\'s stock of numbers' }, onMock: ['sendMessage/mock-whatsapp-answers'] },
  { id: 'channel-refusals-403', part: '7', rule: 'A send, a typing indicator or a call to a destination not enabled answers 403 `unsupported_region`; a new WhatsApp conversation on limited access 403 `whatsapp_limited`.', notChecked: { reason: 'cannot-provoke', why: "which destinations a deployment refuses is the account's, not published" }, onMock: ['sendMessage/mock-whatsapp-answers', 'createCall/mock-call-answers'] },
  { id: 'typing-channel-down-503', part: '4.5', rule: 'Typing answers 503 when the WhatsApp channel cannot be driven.', notChecked: { reason: 'cannot-provoke', why: 'it turns on the channel\'s state' }, onMock: ['sendMessage/mock-whatsapp-answers'] },
  { id: 'event-stream-503', part: '4.5, 7', rule: '`events/wait` answers 503 where the event stream is not configured.', notChecked: { reason: 'cannot-provoke', why: 'it is how the deployment is configured' }, onMock: ['sendMessage/mock-whatsapp-answers'] },
  { id: 'lookup-limits', part: '4.5, 8', rule: 'Lookups past the burst cap answer 429 `rate_limited` with `Retry-After`; repeated lookups of one number do not count.', notChecked: { reason: 'unpublished', why: 'part 8 does not publish the caps; the suite does not spend the lookups to find them' }, onMock: ['lookupNumber/mock-lookup-limits'] },
  { id: 'lookup-502', part: '4.5, 7', rule: 'A lookup that could not complete answers 502.', notChecked: { reason: 'cannot-provoke', why: 'a lookup failure is the service\'s own' }, onMock: ['lookupNumber/mock-lookup-limits'] },
  { id: 'test-helper-not-your-number', part: '4.5, 7', rule: 'An injection to a number that is not the account\'s answers 404.', checked: contract(['injectTestInboundMessage/not-your-number-404'], { advisory: 'the test helper is inferred (x-inferred), so a break is advisory' }) },
  { id: 'events-wait-timeout', part: '6, 8', rule: '`events/wait` with `timeout` 1 answers 408 or an event whose envelope validates.', checked: contract(['waitForEvent/events-wait-timeout']) },
  { id: 'events-wait-timeout-range', part: '8', rule: 'A `timeout` outside 1..60 answers 400.', checked: contract(['waitForEvent/events-wait-timeout-range']) },
  { id: 'event-wait-no-match-408', part: '4.5, 6, 8', rule: 'A wait whose filter matches nothing holds for its timeout, then answers 408: the filter is applied.', checked: contract(['waitForEvent/event-wait-no-match-408']) },
  { id: 'webhook-answers', part: '6', rule: 'A subscription without a valid url answers 400; one made answers 201, is listed as answered and can be pinged.', notChecked: { reason: 'unsafe', why: 'it leaves a subscription behind (no operation removes one)' }, onMock: ['pingWebhook/mock-webhook-answers'] },
  { id: 'ping-reaches-one-subscription', part: '4.5, 6', rule: 'A ping reaches only the subscription named, whatever its `eventTypes`, as `webhook.ping` with `relatedObject` null and `data` {}; a 2xx updates its last-ping time.', notChecked: { reason: 'not-observable', why: 'the suite hosts no endpoint a deployment can deliver to' } },

  // Part 5: authentication.
  { id: 'coupon-credit', part: '5.4', rule: "A valid coupon's credit is added when the account is created, and what remains is taken back at its expiry.", notChecked: { reason: 'unsafe', why: SIGN_UP_REACHES_A_PERSON } },
  { id: 'provisioned-number-cannot-register', part: '5.5', rule: 'A number the service provisioned cannot register an account.', notChecked: { reason: 'unsafe', why: SIGN_UP_REACHES_A_PERSON } },
  { id: 'legacy-base-url', part: '5.8, 9.3', rule: 'The legacy base address serves the same API.', notChecked: { reason: 'another-address', why: 'a run judges one base URL', unlock: 'a second run with --base-url set to the legacy address' } },

  // Part 6: events.
  { id: 'event-message-received', part: '6', rule: "An injected inbound message arrives through `events/wait` as `message.received`: its `messageId` and `relatedObject.id` are the message's, its from, to, body and channel as injected, `source` internal, and the id is the messages list's.", checked: writes(['waitForEvent/event-message-received'], { when: 'where the deployment has the test helper' }) },
  { id: 'event-message-status-changed', part: '4.5, 6', rule: 'A message to --to answers 201, and its `message.status_changed` names it.', checked: writes(['sendMessage/event-message-status-changed'], { advisory: 'its data fields are not shown: a different name, or no event within the window, is advisory' }) },
  { id: 'message-received-once', part: '6', rule: '`message.received` fires once per inbound message; for a group message once per line of the account in the group.', notChecked: { reason: 'not-yet', why: 'the suite waits for the first one and stops; it cannot cause a group message (the test helper\'s fields are not shown)' } },

  // Part 7: errors, across accounts.
  { id: 'cross-account-404', part: '4.4, 7', rule: "Every record id one account reads (its numbers, saved cards, invoices, webhook subscriptions) answers 404 to the other account's key, both ways: reads, and writes that change nothing.", checked: contract(['getTenDlcRegistration/cross-account-404'], { when: 'with --second-key, and an account holds a record the other does not' }), onMock: ['getTenDlcRegistration/cross-account-404'] },
  { id: 'cross-account-ping-404', part: '7', rule: "A ping of one account's webhook subscription with the other account's key answers 404.", checked: writes(['pingWebhook/cross-account-404'], { when: 'with --second-key, and an account has a subscription the other does not' }) },
  { id: 'cross-account-lists', part: '7', rule: "No list of one account holds a record of the other (messages, calls, numbers, webhook subscriptions, groups, saved cards): the suite first gives the second account a message of its own, which only its own list holds.", checked: writes(['listMessages/cross-account-lists'], { when: 'with --second-key' }), onMock: ['listMessages/cross-account-lists'] },
  { id: 'bad-request-ref', part: '7', rule: '`bad_request` carries a reference code starting `ref_` in its message.', notChecked: { reason: 'cannot-provoke', why: 'it is the answer to a failure no request can choose' } },

  // Part 8: limits.
  { id: 'whatsapp-spacing', part: '8', rule: 'A second WhatsApp message inside the spacing gap answers 429 `rate_limited` with `Retry-After`, and is not held open.', checked: writes(['sendMessage/whatsapp-spacing-429'], { when: 'where the account has a ready WhatsApp line' }), onMock: ['sendMessage/mock-whatsapp-answers'] },
  { id: 'whatsapp-volume-caps', part: '8', rule: 'WhatsApp daily and per-recipient caps answer 429 `rate_limited`.', notChecked: { reason: 'unpublished', why: 'the caps are deliberately unpublished' } },
  { id: 'whatsapp-unanswered', part: '8', rule: 'A fourth consecutive WhatsApp message to one recipient with no reply answers 429 `rate_limited`.', notChecked: { reason: 'unsafe', why: 'it sends three messages to a person' } },
  { id: 'imessage-new-conversations', part: '8', rule: 'Past 50 new iMessage conversations a day per number, a send answers 429 `rate_limited`.', notChecked: { reason: 'unsafe', why: 'it sends 50 messages to new recipients' } },
  { id: 'free-concurrency-429', part: '8', rule: "A free account's third call in progress answers 429 `call_limit_reached`.", notChecked: { reason: 'unsafe', why: 'it places two real calls' }, onMock: ['createCall/mock-call-answers'] },
  { id: 'ten-dlc-fee-402', part: '7, 8', rule: 'A 10DLC submission the balance cannot pay answers 402.', checked: withFixture('writes', ['submitTenDlcRegistration/ten-dlc-fee-402'], '--empty-wallet-key', ', where that account holds a pay-as-you-go number not yet registered: one submission, to be refused'), onMock: ['submitTenDlcRegistration/mock-ten-dlc-answers'] },
];

/** The rule of `id`. */
export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}
