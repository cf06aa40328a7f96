// Messages, groups and typing (parts 2, 4.5, 7, 8). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const messagesModule: ResourceModule = {
  name: 'messages',
  parts: '2, 4.5, 7, 8',
  handlers: {},
};
