// Events and webhooks (parts 6). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const eventsModule: ResourceModule = {
  name: 'events',
  parts: '6',
  handlers: {},
};
