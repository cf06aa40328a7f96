// Calls (parts 2, 3, 4.5, 7, 8). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const callsModule: ResourceModule = {
  name: 'calls',
  parts: '2, 3, 4.5, 7, 8',
  handlers: {},
};
