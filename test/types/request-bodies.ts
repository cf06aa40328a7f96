// Type fixture, checked by test/client-types.test.ts with tsc (not run). Lines under
// `// @ts-expect-error TSxxxx` must fail to compile with that error code; every other line must
// compile. The shapes come from the documented examples of the description (part 4).
import { createClient } from '../../src/client/index.js';
import type {
  AnyEvent,
  Call,
  CreateCallRequest,
  ErrorCode,
  EventOfType,
  Message,
  SendMessageRequest,
  UpdateAccountRequest,
} from '../../src/index.js';
import { isEventOfType } from '../../src/events/index.js';

const api = createClient({ apiKey: 'sk_live_types', baseUrl: 'mock' });

export async function accepted(): Promise<void> {
  // POST /api/v1/messages: `to` with exactly one of fromNumber / fromNumberId, or `groupId`.
  const sms: SendMessageRequest = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'Your appointment is confirmed.' };
  const group: SendMessageRequest = { groupId: 'grp_6Tq8Wz2Lm4', channel: 'whatsapp', body: 'The shuttle leaves at 8:15.' };
  const media: SendMessageRequest = { to: '+447700900456', fromNumber: '+447700900123', channel: 'whatsapp', mediaUrls: ['https://cdn.example.org/p.png'] };
  const sent: Message = (await api.POST('/api/v1/messages', { body: sms })).data;
  await api.POST('/api/v1/messages', { body: group });
  await api.POST('/api/v1/messages', { body: media });
  void sent.id;

  // POST /api/v1/calls: 201 fresh or 200 replay, both a Call; a cap is an integer or null.
  const reminder: CreateCallRequest = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Remind the patient.', language: 'en-US', maxCallDurationSeconds: 300 };
  const uncapped: CreateCallRequest = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Confirm.', maxCallDurationSeconds: null };
  const placed = await api.POST('/api/v1/calls', { body: reminder, params: { header: { 'Idempotency-Key': 'k-1' } } });
  const call: Call = placed.data;
  void call;
  await api.POST('/api/v1/calls', { body: uncapped });

  // PATCH /api/v1/account: null clears the cap.
  const clear: UpdateAccountRequest = { maxCallDurationSeconds: null };
  await api.PATCH('/api/v1/account', { body: clear });

  // Path and query parameters.
  await api.PATCH('/api/v1/numbers/{id}', { params: { path: { id: 'pn_8f3kq2m9x7' } }, body: { maxCallDurationSeconds: 900 } });
  await api.GET('/api/v1/usage', { params: { query: { days: 7 } } });

  // Open value sets keep their documented values and accept others.
  const known: ErrorCode = 'rate_limited';
  const future: ErrorCode = 'some_future_code';
  void [known, future];

  // Events narrow by type.
  const waited = await api.POST('/api/v1/events/wait', { body: { timeout: 30, filters: { groupId: 'grp_1' } } });
  // The filters the contract names (type, messageId, channel: inferred, honoured by the mock), and others: open.
  await api.POST('/api/v1/events/wait', { body: { timeout: 30, filters: { type: 'message.received', messageId: 'msg_1', channel: 'whatsapp', status: 'delivered' } } });
  const event: AnyEvent = waited.data;
  if (isEventOfType(event, 'call.status_changed')) {
    const ended: EventOfType<'call.status_changed'>['data']['terminationType'] = event.data.terminationType;
    void ended;
  }
}

export async function rejected(): Promise<void> {
  // @ts-expect-error TS2322 a string where the call cap needs an integer
  const textCap: CreateCallRequest = { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi', maxCallDurationSeconds: '600' };
  // @ts-expect-error TS2741 outboundInstruction is required
  const noInstruction: CreateCallRequest = { to: '+14155550123', fromNumberId: 'pn_1' };
  // @ts-expect-error TS2322 the account cap is an integer or null
  const accountCap: UpdateAccountRequest = { maxCallDurationSeconds: '600' };
  // @ts-expect-error TS2561 misspelt field
  await api.POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi', maxCallDurationSecond: 600 } });
  // @ts-expect-error TS2322 forceAudioFile is a boolean
  const audio: SendMessageRequest = { to: '+14155550123', fromNumberId: 'pn_1', forceAudioFile: 'yes' };
  // @ts-expect-error TS2345 the number id path parameter is required
  await api.PATCH('/api/v1/numbers/{id}', { body: { maxCallDurationSeconds: 900 } });
  // @ts-expect-error no such path
  await api.GET('/api/v1/nonexistent');
  // @ts-expect-error TS2322 an event filter on type is a string
  await api.POST('/api/v1/events/wait', { body: { timeout: 30, filters: { type: 5 } } });
  // @ts-expect-error TS2345 a client needs a base URL: the service address is not shown (part 5.8)
  createClient({ apiKey: 'sk_live_types' });
  // @ts-expect-error messages are not deleted
  await api.DELETE('/api/v1/messages');
  void [textCap, noInstruction, accountCap, audio];
}

export async function perStatus(): Promise<'fresh' | 'replay'> {
  // POST /api/v1/calls answers 201 (placed) or 200 (idempotent replay): the result narrows on status.
  const result = await api.POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi' } });
  const status: 200 | 201 = result.status;
  // @ts-expect-error TS2367 202 is not a documented status of createCall
  if (result.status === 202) return 'fresh';
  return status === 201 ? 'fresh' : 'replay';
}
