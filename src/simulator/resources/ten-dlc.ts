// 10DLC registration (parts 2, 3, 4.5, 7, 8; spec/states/ten-dlc.yaml): submission (JSON, or
// multipart with a `data` part and an optional `optInImage` file), the one-time fee, the
// review that moves only with the simulated clock, and each documented 10DLC error from its
// cause.
//
// Choices where the interface specification is silent:
// - `tendlc_not_applicable` answers a number 10DLC never applies to (non-US, or `imessage`);
//   `tendlc_not_available` answers a number of an account that is not pay-as-you-go (an active
//   subscription) with no registration yet: the other case part 2 gives a null `tenDlc`.
// - The fee is taken once per number (part 8: "one time per number"): a resubmission, after a
//   rejection or otherwise, is free.
// - Review takes about 12 hours (`in_review` → `with_carrier`), the carrier about 24 more
//   (→ `approved`); the `tenDlcRejectedInReview` / `tenDlcRejectedByCarrier` test values end in
//   `rejected` with the documented `reason` instead.
// - A submission without `brand.brandId` registers a new brand for the number (its id is
//   answered in `brand.brandId`), approved together with the registration; a resubmission keeps
//   the number's own brand. A `brandId` is looked up among the caller's brands only, so a
//   brand of someone else answers exactly as an unknown one (part 7).
import type { ProcessStep, RequestContext, ResourceModule, RuleContext } from '../context.js';
import { dict, type AccountState } from '../state.js';
import { matchTestValue } from '../documented-inputs.js';
import { ruleVerdict, type Verdict } from '../../contract/verdict.js';
import { readableFieldErrors } from '../field-errors.js';
import type { FormPart, JsonObject, SimResponse } from '../types.js';
import { chargeWallet } from './billing.js';
import { accountIsPayg, findNumber, refreshNumbers, tenDlcApplicable } from './numbers.js';

const REVIEW = 'tenDlc.review';
const CARRIER = 'tenDlc.carrier';
const HOUR = 3_600_000;
export const TEN_DLC_REVIEW_MS = 12 * HOUR;
export const TEN_DLC_CARRIER_MS = 24 * HOUR;
/** Part 8: the opt-in screenshot is at most 2 MB, JPEG, PNG, WebP or GIF. */
const IMAGE_TYPES: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };
const IMAGE_MAX_BYTES = 2 * 1024 * 1024;
const IMAGE_NAMES = ['JPEG', 'PNG', 'WebP', 'GIF'];
const KINDS = ['sole_proprietor', 'business'];

interface Brand extends JsonObject {
  kind: string;
  status: 'in_review' | 'approved' | 'rejected';
  /** The numbers whose campaigns use the brand. */
  numbers: string[];
}

function brands(account: AccountState): Record<string, Brand> {
  return ((account.extra.tenDlcBrands ??= dict()) as Record<string, Brand>);
}
function feesPaid(account: AccountState): Record<string, true> {
  return ((account.extra.tenDlcFeesPaid ??= dict()) as Record<string, true>);
}

/** The one-time fee (part 8), read from the documented `feeNotCovered` answer so it is stated once. */
export function tenDlcFee(ctx: Pick<RuleContext, 'contract'>): number {
  const text = String(ctx.contract.example('submitTenDlcRegistration', 402, 'feeNotCovered').error);
  const match = /(\d+(?:\.\d+)?) USD/.exec(text);
  if (!match) throw new Error('The feeNotCovered example of submitTenDlcRegistration names no USD fee.');
  return Number(match[1]);
}

/** The registration of a JSON or multipart request, or the 400 when a multipart `data` part is not one. */
function readSubmission(ctx: RequestContext): { data: JsonObject; image?: FormPart } | SimResponse {
  const form = ctx.request.form;
  if (!form) return { data: ctx.body };
  const part = form.data;
  let data: unknown;
  try {
    // A `data` part sent as a file (a Blob with `application/json`, as the encoding says) arrives as bytes.
    if (part) data = JSON.parse(typeof part.value === 'string' ? part.value : new TextDecoder().decode(part.value));
  } catch {
    // not JSON: refused below, as a `data` that is not an object
  }
  const field = (path: string[], keyword: string, params: Record<string, unknown>, errorMessage?: string): Verdict =>
    ruleVerdict({ in: 'body', keyword, params, field: path, instancePath: `/${path.join('/')}`, ...(errorMessage ? { errorMessage } : {}) });
  if (!data || typeof data !== 'object' || Array.isArray(data)) return readableFieldErrors({ body: {}, form }, [field(['data'], 'type', { type: 'object' }, 'Must be the registration as JSON')]);
  const record = data as JsonObject;
  const verdicts: Verdict[] = [];
  if (!KINDS.includes(record.kind)) verdicts.push(field(['data', 'kind'], 'enum', { allowedValues: KINDS }));
  for (const name of ['brand', 'campaign']) {
    if (!record[name] || typeof record[name] !== 'object') verdicts.push(field(['data', name], 'type', { type: 'object' }));
  }
  const image = form.optInImage;
  if (image && (typeof image.value === 'string' || image.value.byteLength > IMAGE_MAX_BYTES || !IMAGE_TYPES[image.contentType ?? ''])) {
    verdicts.push(field(['optInImage'], 'fileType', { types: IMAGE_NAMES, maxBytes: IMAGE_MAX_BYTES }));
  }
  if (verdicts.length > 0) return readableFieldErrors({ body: {}, form }, verdicts);
  return { data: record, ...(image ? { image } : {}) };
}

/**
 * The checks that come before anything is charged, in order: the number (404), whether 10DLC
 * applies (403) and the fields part 7 names (400 `tendlc_validation_failed`, an object keyed by
 * field with the documented messages).
 */
function gate(ctx: RequestContext, data: JsonObject): SimResponse | undefined {
  const { account } = ctx;
  const number = findNumber(account, { id: ctx.params.id });
  if (!number) return ctx.documented(404, 'numberNotFound');
  if (!tenDlcApplicable(number)) return ctx.documented(403, 'tendlcNotApplicable');
  if (!accountIsPayg(account) && !account.tenDlc[number.id]) return ctx.documented(403, 'tendlcNotAvailable');
  const documented = ctx.contract.example('submitTenDlcRegistration', 400, 'tendlcValidationFailed') as JsonObject;
  const messages = documented.error as Record<string, string>;
  const brand = (data.brand && typeof data.brand === 'object' ? data.brand : {}) as JsonObject;
  const errors: Record<string, string> = {};
  // Part 2: `vertical` is required for a sole proprietor (the request schema says the same).
  if (data.kind === 'sole_proprietor' && (typeof brand.vertical !== 'string' || brand.vertical === '')) errors.vertical = messages.vertical!;
  // Part 7: the contact phone cannot be one of the account's own numbers.
  if (typeof brand.phone === 'string' && findNumber(account, { number: brand.phone })) errors.phone = messages.phone!;
  if (Object.keys(errors).length > 0) return ctx.json(400, { error: errors, code: documented.code });
  return undefined;
}

function submit(ctx: RequestContext<'submitTenDlcRegistration'>): SimResponse {
  const submission = readSubmission(ctx);
  if ('status' in submission) return submission;
  const { data, image } = submission;
  const refused = gate(ctx, data);
  if (refused) return refused;
  const { account } = ctx;
  const number = findNumber(account, { id: ctx.params.id })!;
  const existing = account.tenDlc[number.id];
  const requested = data.brand as JsonObject;

  // An existing brand named by `brandId` (part 7): the caller's own only.
  let brandId: string | undefined = typeof requested.brandId === 'string' ? requested.brandId : undefined;
  if (brandId !== undefined) {
    const brand = brands(account)[brandId];
    if (!brand) return ctx.documented(404, 'tendlcBrandNotFound');
    const own = brand.numbers.includes(number.id);
    if (brand.kind === 'sole_proprietor' && !own && brand.numbers.length > 0) return ctx.documented(403, 'tendlcBrandNotReusable');
    if (brand.status !== 'approved' && !own) return ctx.documented(409, 'tendlcBrandNotApproved');
  }

  // Parts 3 and 8: the fee once per number, from the balance; 402 when it does not cover it.
  if (!feesPaid(account)[number.id]) {
    const fee = tenDlcFee(ctx);
    if (account.balance < fee) return ctx.documented(402, 'feeNotCovered');
    chargeWallet(ctx, account, fee, '10DLC registration fee');
    feesPaid(account)[number.id] = true;
  }

  if (brandId === undefined) {
    const previous = existing?.brand?.brandId as string | undefined;
    brandId = previous && brands(account)[previous]?.numbers.includes(number.id) ? previous : ctx.ids.next('BRD');
  }
  const brand = (brands(account)[brandId] ??= { kind: String(data.kind), status: 'in_review', numbers: [] });
  if (!brand.numbers.includes(number.id)) brand.numbers.push(number.id);
  if (brand.status !== 'approved') brand.status = 'in_review';

  const { optInImage, ...campaign } = data.campaign as JsonObject;
  let optInImageUrl = (existing?.optInImageUrl as string | null | undefined) ?? null;
  if (image) {
    const documentedUrl = String((ctx.contract.example('getTenDlcRegistration', 200, 'approved') as JsonObject).optInImageUrl);
    optInImageUrl = documentedUrl.replace(/pn_[A-Za-z0-9]+/, number.id).replace(/\.\w+$/, `.${IMAGE_TYPES[image.contentType!]}`);
  } else if (optInImage === null) {
    optInImageUrl = null;
  }
  const registration: JsonObject = {
    kind: data.kind,
    brand: { ...requested, brandId },
    campaign,
    status: 'in_review',
    reason: null,
    optInImageUrl,
  };
  account.tenDlc[number.id] = registration;
  for (const kind of [REVIEW, CARRIER]) ctx.unschedule(account, kind, number.id);
  const result = matchTestValue(ctx.contract, ctx.operationId, { ...ctx.request, body: data }, ['tenDlcRejectedInReview', 'tenDlcRejectedByCarrier'])?.name;
  ctx.schedule(account, REVIEW, number.id, TEN_DLC_REVIEW_MS, result ? { outcome: result } : undefined);
  refreshNumbers(account);
  return ctx.json(200, registration);
}

function reject(ctx: RuleContext, account: AccountState, registration: JsonObject): void {
  registration.status = 'rejected';
  registration.reason = (ctx.contract.example('getTenDlcRegistration', 200, 'rejected') as JsonObject).reason;
  const brand = brands(account)[String(registration.brand?.brandId)];
  if (brand && brand.status !== 'approved') brand.status = 'rejected';
}

/** A stage of the review: a registration still `at` it is rejected when the job's outcome is `rejection`, else `passes`. */
const stage =
  (at: string, rejection: string, passes: (...args: [...Parameters<ProcessStep>, JsonObject]) => void): ProcessStep =>
  (ctx, account, job) => {
    const registration = account.tenDlc[job.ref];
    if (registration?.status !== at) return;
    if (job.data?.outcome === rejection) reject(ctx, account, registration);
    else passes(ctx, account, job, registration);
    refreshNumbers(account);
  };

const review = stage('in_review', 'tenDlcRejectedInReview', (ctx, account, job, registration) => {
  registration.status = 'with_carrier';
  ctx.schedule(account, CARRIER, job.ref, TEN_DLC_CARRIER_MS, job.data);
});

const carrier = stage('with_carrier', 'tenDlcRejectedByCarrier', (_ctx, account, _job, registration) => {
  registration.status = 'approved';
  const brand = brands(account)[String(registration.brand?.brandId)];
  if (brand) brand.status = 'approved';
});

export const tenDlcModule: ResourceModule = {
  name: 'ten-dlc',
  parts: '2, 3, 4.5, 7, 8',
  reads: ['getTenDlcRegistration'],
  handlers: {
    submitTenDlcRegistration: submit,
    getTenDlcRegistration(ctx) {
      const number = findNumber(ctx.account, { id: ctx.params.id });
      if (!number) return ctx.documented(404);
      return ctx.json(200, ctx.account.tenDlc[number.id] ?? { status: 'not_registered', reason: null, optInImageUrl: null });
    },
  },
  precheck: {
    // Part 7's cause-specific answers (404, 403, `tendlc_validation_failed`) win over the generic
    // 400 the contract gate would give a JSON body without `vertical` for a sole proprietor.
    submitTenDlcRegistration(ctx) {
      if (ctx.request.violations.length === 0 || ctx.request.form) return undefined;
      return gate(ctx, ctx.body);
    },
  },
  processes: { [REVIEW]: review, [CARRIER]: carrier },
  seed(ctx, account) {
    // A seeded number whose `tenDlc` shows a registration gets one, from the documented
    // registration of its status (its brand included), fee paid; one still under way moves on.
    for (const number of account.numbers) {
      const summary = number.tenDlc as JsonObject | null;
      if (!summary || summary.status === 'not_registered' || account.tenDlc[number.id]) continue;
      const template = ctx.contract.example('getTenDlcRegistration', 200, summary.status === 'rejected' ? 'rejected' : 'approved') as JsonObject;
      const registration: JsonObject = {
        ...template,
        status: summary.status,
        reason: summary.status === 'rejected' ? (summary.reason ?? template.reason) : null,
        optInImageUrl: typeof template.optInImageUrl === 'string' ? template.optInImageUrl.replace(/pn_[A-Za-z0-9]+/, number.id) : null,
      };
      account.tenDlc[number.id] = registration;
      feesPaid(account)[number.id] = true;
      const brandId = registration.brand?.brandId as string | undefined;
      if (brandId) {
        const brand = (brands(account)[brandId] ??= { kind: String(registration.kind), status: summary.status === 'approved' ? 'approved' : 'in_review', numbers: [] });
        if (!brand.numbers.includes(number.id)) brand.numbers.push(number.id);
      }
      if (summary.status === 'in_review') ctx.schedule(account, REVIEW, number.id, TEN_DLC_REVIEW_MS);
      if (summary.status === 'with_carrier') ctx.schedule(account, CARRIER, number.id, TEN_DLC_CARRIER_MS);
    }
  },
};
