// Type fixture for part 4.5 "Provide exactly one of `to` or `groupId`" (checked by
// test/client-types.test.ts). Each line under a directive must fail to compile.
import type { SendMessageRequest } from '../../src/index.js';

// @ts-expect-error neither `to` nor `groupId`
export const neither: SendMessageRequest = { body: 'Hello' };
// @ts-expect-error both `to` and `groupId`
export const both: SendMessageRequest = { to: '+14155550123', groupId: 'grp_1', fromNumberId: 'pn_1', body: 'Hello' };
// @ts-expect-error a `to` send without fromNumber or fromNumberId
export const noSender: SendMessageRequest = { to: '+14155550123', body: 'Hello' };
// @ts-expect-error both `fromNumber` and `fromNumberId` on a `to` send
export const twoSenders: SendMessageRequest = { to: '+14155550123', fromNumber: '+14155550100', fromNumberId: 'pn_1', body: 'Hello' };

// The documented shapes still compile: a `to` send with one sender, a group send with or without one.
export const toNumber: SendMessageRequest = { to: '+14155550123', fromNumberId: 'pn_1', body: 'Hello' };
export const toGroup: SendMessageRequest = { groupId: 'grp_1', channel: 'whatsapp', body: 'Hello' };
export const toGroupFromLine: SendMessageRequest = { groupId: 'grp_1', fromNumberId: 'pn_1', body: 'Hello' };
