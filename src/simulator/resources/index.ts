// Every resource module the simulator routes to, one per resource or state machine of the
// interface specification.
import type { ResourceModule } from '../context.js';
import { accountModule } from './account.js';
import { authModule } from './auth.js';
import { billingModule } from './billing.js';
import { callsModule } from './calls.js';
import { eventsModule } from './events.js';
import { lookupModule } from './lookup.js';
import { messagesModule } from './messages.js';
import { numbersModule } from './numbers.js';
import { tenDlcModule } from './ten-dlc.js';
import { trafficInjectionModule } from './traffic-injection.js';
import { usageModule } from './usage.js';

export const RESOURCE_MODULES: readonly ResourceModule[] = [
  authModule,
  accountModule,
  usageModule,
  billingModule,
  numbersModule,
  tenDlcModule,
  messagesModule,
  callsModule,
  eventsModule,
  lookupModule,
  trafficInjectionModule,
];
