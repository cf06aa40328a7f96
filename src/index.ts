// numbers-api-contract: the types of the Messaging and Voice Number Service, generated from the
// bundled OpenAPI description (generated/types/openapi.ts), plus friendly names for the resources
// and events. Every alias below is derived from the generated types; none restates a shape.
//
//   import type { Message, SendMessageRequest, paths } from 'numbers-api-contract';
//
// The typed HTTP client is `numbers-api-contract/client`; event helpers are
// `numbers-api-contract/events`.

import type { components, paths } from '../generated/types/openapi.js';
import type { HttpMethod as Method } from './contract/operations.js';

export type { $defs, components, operations, paths, webhooks } from '../generated/types/openapi.js';
export { documentedErrorCodes, documentedEventTypes, serverUrls } from '../generated/types/constants.js';

type Schemas = components['schemas'];
export type { PathWith } from './client/index.js';

/** The operation object of `M P`, as generated. */
export type OperationOf<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of `M P`: `JsonRequestBody<'/api/v1/messages', 'post'>`. */
export type JsonRequestBody<P extends keyof paths, M extends Method> =
  OperationOf<P, M> extends { requestBody?: infer Body }
    ? NonNullable<Body> extends { content: { 'application/json': infer Json } }
      ? Json
      : never
    : never;

/** The JSON body of response `S` of `M P`: `JsonResponseBody<'/api/v1/calls', 'post', 201>`. */
export type JsonResponseBody<P extends keyof paths, M extends Method, S extends number> =
  OperationOf<P, M> extends { responses: infer Responses }
    ? S extends keyof Responses
      ? Responses[S] extends { content: { 'application/json': infer Json } }
        ? Json
        : never
      : never
    : never;

// Resources (part 2).
export type Account = Schemas['Account'];
export type FreeAccountLimits = Schemas['FreeAccountLimits'];
export type PhoneNumber = Schemas['PhoneNumber'];
export type TenDlcRegistration = Schemas['TenDlcRegistration'];
export type TenDlcStatus = Schemas['TenDlcStatus'];
export type Message = Schemas['Message'];
export type MessageChannel = Schemas['MessageChannel'];
export type MediaItem = Schemas['MediaItem'];
export type Group = Schemas['Group'];
export type Call = Schemas['Call'];
export type CallStatus = Schemas['CallStatus'];
export type CallState = Schemas['CallState'];
export type TerminationType = Schemas['TerminationType'];
export type Usage = Schemas['Usage'];
export type BillingStatus = Schemas['BillingStatus'];
export type BillingMode = Schemas['BillingMode'];
export type BillingActivityItem = Schemas['BillingActivityItem'];
export type WebhookSubscription = Schemas['WebhookSubscription'];
export type LookupResult = Schemas['LookupResult'];

// Events (part 6). `AnyEvent` is the union a consumer receives; `Event` is the envelope every event
// has, including types this contract does not document (`UnknownEvent`).
export type Event = Schemas['Event'];
export type EventType = Schemas['EventType'];
export type AnyEvent = Schemas['AnyEvent'];
export type MessageReceivedEvent = Schemas['MessageReceivedEvent'];
export type MessageReceivedData = Schemas['MessageReceivedData'];
export type MessageStatusChangedEvent = Schemas['MessageStatusChangedEvent'];
export type CallStatusChangedEvent = Schemas['CallStatusChangedEvent'];
export type CallStatusChangedData = Schemas['CallStatusChangedData'];
export type WebhookPingEvent = Schemas['WebhookPingEvent'];
export type UnknownEvent = Schemas['UnknownEvent'];
export type { DocumentedEventType, EventOfType, KnownEvent } from './events/types.js';

// Errors (part 7).
/** The one error body of the service: `error` (a string, or an object for validation failures) and sometimes `code`. */
export type ErrorBody = Schemas['Error'];
export type ErrorCode = Schemas['ErrorCode'];
/** The fields of a 400 validation failure (part 7), each with its messages: `isFieldErrors` (client) narrows an error to it. */
export type FieldErrors = Schemas['FieldErrors']['fieldErrors'];
/** The `error` of a 400 validation failure: `{ fieldErrors }` (the contract's `FieldErrors` schema). */
export type FieldErrorsError = Schemas['FieldErrors'];

// What the mock's gate, its answer check, the validating proxy and the conformance suite find
// wrong: one verdict per break, as data (the conformance JSON report's `verdicts`).
export type { Actual, ActualType, Severity, UnionBranch, Verdict, VerdictPlace } from './contract/verdict.js';

// Request bodies, taken from the operations that accept them.
export type SendMessageRequest = JsonRequestBody<'/api/v1/messages', 'post'>;
export type CreateCallRequest = JsonRequestBody<'/api/v1/calls', 'post'>;
export type UpdateAccountRequest = JsonRequestBody<'/api/v1/account', 'patch'>;
export type CreateNumberRequest = JsonRequestBody<'/api/v1/numbers', 'post'>;
export type UpdateNumberRequest = JsonRequestBody<'/api/v1/numbers/{id}', 'patch'>;
export type TypingRequest = JsonRequestBody<'/api/v1/typing', 'post'>;
export type EventWaitRequest = JsonRequestBody<'/api/v1/events/wait', 'post'>;
export type SignupRequest = JsonRequestBody<'/api/v1/auth/signup', 'post'>;
export type VerifyRequest = JsonRequestBody<'/api/v1/auth/verify', 'post'>;
export type RegisterNumberRequest = JsonRequestBody<'/api/v1/auth/register-number', 'post'>;
export type VerifyNumberRequest = JsonRequestBody<'/api/v1/auth/verify-number', 'post'>;
export type TenDlcRegistrationRequest = JsonRequestBody<'/api/v1/numbers/{id}/10dlc', 'post'>;
export type WebhookSubscriptionRequest = JsonRequestBody<'/api/v1/webhooks', 'post'>;
