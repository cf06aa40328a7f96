// numbers-api-contract/events: narrowing events by `type`, the long-poll wait, and the signature
// check for local fan-out targets (part 6).

export {
  isCallStatusChangedEvent,
  isEvent,
  isEventOfType,
  isKnownEvent,
  isMessageReceivedEvent,
  isMessageStatusChangedEvent,
  isWebhookPingEvent,
} from './guards.js';
export type { DocumentedEventType, EventOfType, KnownEvent } from './types.js';
export { waitForEvent, type WaitForEventOptions } from './wait-for-event.js';
export { verifySignature } from './verify-signature.js';
export { documentedEventTypes } from '../../generated/types/constants.js';
