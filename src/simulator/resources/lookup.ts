// Number lookup (parts 4.5, 8). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const lookupModule: ResourceModule = {
  name: 'lookup',
  parts: '4.5, 8',
  handlers: {},
};
