// Phone numbers (parts 2, 4.5). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const numbersModule: ResourceModule = {
  name: 'numbers',
  parts: '2, 4.5',
  handlers: {},
};
