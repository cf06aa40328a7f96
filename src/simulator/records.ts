// The simulator's records and answers, typed from the contract (generated/types/openapi.ts, made by
// `npm run generate` from the bundle): a record the simulator keeps is the schema's own type, and a
// handler's answer is typed by its operation and status, so a composed answer that drifts from the
// contract fails to compile, before the composed-answer check would catch it at run time.
import type { components, operations } from '../../generated/types/openapi.js';

type Schemas = components['schemas'];

export type AccountRecord = Omit<Schemas['Account'], 'limits' | 'apiKeys'>;
export type FreeAccountLimits = Schemas['FreeAccountLimits'];
export type NumberRecord = Schemas['PhoneNumber'];
export type MessageRecord = Schemas['Message'];
export type MediaRecord = Schemas['MediaItem'];
export type MessageChannel = Schemas['MessageChannel'];
/** A call as a seed gives it, and as the simulator keeps it: it always issues the id (the Call schema leaves `id` optional, part 2). */
export type SeededCallRecord = Schemas['Call'];
export type CallRecord = SeededCallRecord & { id: string };
export type CallStatusRecord = Schemas['CallStatus'];
export type TerminationType = Schemas['TerminationType'];
export type CallStatusChangedData = Schemas['CallStatusChangedData'];
export type TenDlcSummaryRecord = Schemas['TenDlcSummary'];
export type GroupRecord = Schemas['Group'];
export type WebhookRecord = Schemas['WebhookSubscription'];
export type SubscriptionRecord = Schemas['Subscription'];
export type PaymentMethodRecord = Schemas['PaymentMethod'];
export type DepositRecord = Schemas['Deposit'];
export type ActivityRecord = Schemas['BillingActivityItem'];
export type InvoiceRecord = Schemas['Invoice'];
export type TenDlcRecord = Schemas['TenDlcRegistration'];
export type UsageRecord = Schemas['Usage'];

/** The operationIds of the contract. */
export type OperationId = keyof operations;
type ResponsesOf<Op extends OperationId> = operations[Op]['responses'];
/** The statuses `Op` documents. */
export type StatusOf<Op extends OperationId> = Extract<keyof ResponsesOf<Op>, number>;
/** The JSON body of `Op`'s answer `S` (never where that answer has none). */
export type BodyOf<Op extends OperationId, S extends StatusOf<Op>> = ResponsesOf<Op>[S] extends { content: { 'application/json': infer Body } } ? Body : never;
