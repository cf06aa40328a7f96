// Type fixture for part 4.5 "Provide exactly one of `to` or `groupId`" (checked by
// test/client-types.test.ts). Each line must fail to compile.
import type { SendMessageRequest } from '../../src/index.js';

// @ts-expect-error neither `to` nor `groupId`
export const neither: SendMessageRequest = { body: 'Hello' };
// @ts-expect-error both `to` and `groupId`
export const both: SendMessageRequest = { to: '+14155550123', groupId: 'grp_1', fromNumberId: 'pn_1', body: 'Hello' };
// @ts-expect-error a `to` send without fromNumber or fromNumberId
export const noSender: SendMessageRequest = { to: '+14155550123', body: 'Hello' };
