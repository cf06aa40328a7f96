// Sign-up and registration (parts 3, 4.1, 5). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const authModule: ResourceModule = {
  name: 'auth',
  parts: '3, 4.1, 5',
  handlers: {},
};
