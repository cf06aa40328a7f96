// Usage (parts 4.3). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const usageModule: ResourceModule = {
  name: 'usage',
  parts: '4.3',
  handlers: {},
};
