// Test traffic helpers (parts 4.5). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const testHelpersModule: ResourceModule = {
  name: 'test-helpers',
  parts: '4.5',
  handlers: {},
};
