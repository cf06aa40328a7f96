// numbers-api-contract/msw: the stateful mock as MSW request handlers (msw 2.x, a peer
// dependency), for browser apps (setupWorker), Storybook and unit tests (setupServer).
export { createHandlers, serverBaseUrls, MockControlError, type CreateHandlersOptions, type MockControl, type MockHandlers } from './handlers.js';
export { manualClock, sequentialIds, systemClock, type IdGenerator, type SimClock } from '../simulator/clock.js';
export type { SeedFile, AccountSeed, NamedAccountSeed } from '../simulator/seed.js';
export type { SimEvent } from '../simulator/types.js';
