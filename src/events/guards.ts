// Type guards for events (part 6). Dispatch on `type`: a documented type narrows to its own
// schema; any other type is still a valid event and passes through as the envelope (`Event`),
// because the full list of event types is not shown and new ones may arrive.

import { documentedEventTypes, eventEnvelopeFields } from '../../generated/types/constants.js';
import type { components } from '../../generated/types/openapi.js';
import { hasEventEnvelope } from './envelope.js';
import type { DocumentedEventType, EventOfType, KnownEvent } from './types.js';

type Event = components['schemas']['Event'];

const documented: ReadonlySet<string> = new Set(documentedEventTypes);

/**
 * Whether a value has the event envelope: every envelope field present, `type` a string and
 * `data` an object. Use it on a parsed body before trusting anything else in it.
 */
export function isEvent(value: unknown): value is Event {
  return hasEventEnvelope(value, eventEnvelopeFields);
}

/** Whether an event's type is one the description documents (then it has that type's schema). */
export function isKnownEvent(event: Event): event is KnownEvent {
  return documented.has(event.type);
}

/** Narrow an event to one documented type: `if (isEventOfType(e, 'message.received')) e.data.body`. */
export function isEventOfType<T extends DocumentedEventType>(event: Event, type: T): event is EventOfType<T> {
  return event.type === type;
}

export const isMessageReceivedEvent = (event: Event): event is EventOfType<'message.received'> => isEventOfType(event, 'message.received');
export const isMessageStatusChangedEvent = (event: Event): event is EventOfType<'message.status_changed'> =>
  isEventOfType(event, 'message.status_changed');
export const isCallStatusChangedEvent = (event: Event): event is EventOfType<'call.status_changed'> => isEventOfType(event, 'call.status_changed');
export const isWebhookPingEvent = (event: Event): event is EventOfType<'webhook.ping'> => isEventOfType(event, 'webhook.ping');
