// Event types narrowed by `type` (part 6): the generated `KnownEvent` union and the documented
// event types read from the description.

import type { documentedEventTypes } from '../../generated/types/constants.js';
import type { components } from '../../generated/types/openapi.js';

/** An event type the description documents: `message.received`, `call.status_changed`, ... */
export type DocumentedEventType = (typeof documentedEventTypes)[number];

/**
 * The documented events, one member per `type`: the contract's `KnownEvent`. (The `UnknownEvent`
 * branch of `AnyEvent` has an open `type`, so it is not part of this union: it is the envelope,
 * `Event`.)
 */
export type KnownEvent = components['schemas']['KnownEvent'];

/** The event schema of one documented type: `EventOfType<'call.status_changed'>`. */
export type EventOfType<T extends DocumentedEventType> = Extract<KnownEvent, { type: T }>;

// Fails to compile when a type is documented in `EventType` without its own branch in `KnownEvent`
// (or the reverse), so the guards below can never promise a shape the description lacks.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyDocumentedTypeHasASchema: Exactly<KnownEvent['type'], DocumentedEventType> = true;
void everyDocumentedTypeHasASchema;
