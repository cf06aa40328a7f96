// Messages, groups, typing and test traffic (parts 2, 4.5, 6, 7, 8) in the simulator core
// (in-process, deterministic clock and ids, every request through the contract's validator as the
// gate and every answer checked against the contract), then on the real stateful mock over HTTP.
// Each test fails when its rule is taken out of src/simulator/resources/messages.ts or
// traffic-injection.ts.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/simulator.js';
import type { JsonObject } from '../src/simulator/types.js';
import type { NumberRecord } from '../src/simulator/records.js';
import { messagingState } from '../src/simulator/resources/messages.js';
import { checkEventsAfterEach, inProcessSimulator, useStatefulMock, type Answer } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

// Every event emitted is checked against the contract's event schemas (AnyEvent, part 6).
const checkEvents = checkEventsAfterEach();
const KEY = 'sk_live_messages';
// The demo seed's numbers (the contract's twoNumbers example): a PAYG SMS line and a FIXED iMessage line.
const SMS_LINE = { id: 'pn_8f3kq2m9x7', number: '+13125550187' };
const IMESSAGE_LINE = { id: 'pn_5k1vt8e3qa', number: '+14155550142' };
const WHATSAPP_LINE = { id: 'pn_9w4hx6m2ys', number: '+447700900123' };
const TEST = { unsupportedRegion: '+15005550300', whatsappLimited: '+15005550301', notOnWhatsapp: '+15005550302', channelDown: '+15005550303' };

interface Harness {
  sim: Simulator;
  call(method: string, path: string, body?: unknown, key?: string): Answer;
  account(key?: string): ReturnType<Simulator['accountForKey']> & object;
  /** Adds the contract's example number (`whatsappReadyNumber`, `whatsappWarmingUp` ...) to the account. */
  addNumber(example: string, key?: string): JsonObject;
  events(type: string, key?: string): JsonObject[];
}

function harness(): Harness {
  const { simulator: sim, call, account } = inProcessSimulator({ key: KEY });
  checkEvents(sim);
  return {
    sim,
    call,
    account,
    addNumber(example, key = KEY) {
      // The demo seed may hold the same example number already: the test's copy replaces it.
      const number = sim.contract.componentExample(example) as NumberRecord;
      const numbers = account(key).numbers;
      numbers.splice(0, numbers.length, ...numbers.filter((n) => n.id !== number.id), number);
      return number;
    },
    events: (type, key = KEY) => account(key).events.map((e) => e.event as unknown as JsonObject).filter((e) => e.type === type),
  };
}

const example = (h: Harness, operationId: string, status: number, name?: string) => h.sim.contract.example(operationId, status, name);
const sms = (to: string, body = 'Hello') => ({ to, fromNumberId: SMS_LINE.id, body });
const whatsapp = (to: string, extra: JsonObject = {}) => ({ to, fromNumberId: WHATSAPP_LINE.id, channel: 'whatsapp', body: 'Hi', ...extra });

describe('sending and listing (parts 2, 4.5, 8)', () => {
  it('answers 201 with the record composed from the request, and lists it first', () => {
    const h = harness();
    const answer = h.call('POST', '/api/v1/messages', sms('+14155550999', 'Your table is ready.'));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      phoneNumberId: SMS_LINE.id,
      from: SMS_LINE.number,
      to: '+14155550999',
      body: 'Your table is ready.',
      channel: 'sms',
      groupId: null,
      source: 'external',
      media: [],
    });
    const list = h.call('GET', '/api/v1/messages').body as JsonObject[];
    expect(list[0]).toEqual(answer.body);
    // The demo seed's history follows.
    expect(list).toHaveLength(1 + (example(h, 'listMessages', 200, 'recentMessages') as unknown[]).length);
  });

  it('sends from fromNumber as well as fromNumberId, and on an iMessage number over iMessage', () => {
    const h = harness();
    const answer = h.call('POST', '/api/v1/messages', { to: '+14155550998', fromNumber: IMESSAGE_LINE.number, body: 'Hi' });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ phoneNumberId: IMESSAGE_LINE.id, from: IMESSAGE_LINE.number, channel: 'imessage' });
  });

  it('stores attachments as media items with their original URL and content type', () => {
    const h = harness();
    const answer = h.call('POST', '/api/v1/messages', { to: '+14155550997', fromNumberId: SMS_LINE.id, mediaUrls: ['https://cdn.example.org/a/plan.png'] });
    expect((answer.body as JsonObject).media).toEqual([expect.objectContaining({ contentType: 'image/png', originalUrl: 'https://cdn.example.org/a/plan.png' })]);
  });

  it('lists at most the 100 newest, newest first', () => {
    const h = harness();
    const sent = Array.from({ length: 105 }, (_, i) => (h.call('POST', '/api/v1/messages', sms('+14155550100', `n${i}`)).body as JsonObject).id);
    const list = h.call('GET', '/api/v1/messages').body as JsonObject[];
    expect(list).toHaveLength(100);
    expect(list.map((m) => m.id)).toEqual(sent.slice(-100).reverse());
  });

  it('filters by since (strictly after), direction and groupId', () => {
    const h = harness();
    const first = h.call('POST', '/api/v1/messages', sms('+14155550101', 'first')).body as JsonObject;
    const between = new Date(h.sim.clock.now() + 500).toISOString();
    h.sim.advance(1000);
    const second = h.call('POST', '/api/v1/messages', sms('+14155550101', 'second')).body as JsonObject;
    const inbound = h.call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550101', body: 'reply' }).body as JsonObject;
    const since = h.call('GET', `/api/v1/messages?since=${encodeURIComponent(between)}`).body as JsonObject[];
    expect(since.map((m) => m.id)).toEqual([inbound.id, second.id]);
    const outbound = h.call('GET', '/api/v1/messages?direction=outbound').body as JsonObject[];
    expect(outbound.map((m) => m.id)).toContain(first.id);
    expect(outbound.map((m) => m.id)).not.toContain(inbound.id);
    const inboundOnly = h.call('GET', '/api/v1/messages?direction=inbound').body as JsonObject[];
    expect(inboundOnly[0]!.id).toBe(inbound.id);
    expect(inboundOnly.map((m) => m.id)).not.toContain(first.id);
    const group = h.call('GET', '/api/v1/messages?groupId=grp_6Tq8Wz2Lm4').body as JsonObject[];
    expect(group.length).toBeGreaterThan(0);
    expect(group.every((m) => m.groupId === 'grp_6Tq8Wz2Lm4')).toBe(true);
  });

  it('answers the documented invalidSince for a since that is not a timestamp', () => {
    const h = harness();
    expect(h.call('GET', '/api/v1/messages?since=yesterday')).toEqual({ status: 400, body: example(h, 'listMessages', 400, 'invalidSince') });
  });

  it('lists the groups from the account state', () => {
    const h = harness();
    h.account().groups.push({ id: 'grp_new', channel: 'whatsapp' });
    const groups = h.call('GET', '/api/v1/groups').body as JsonObject[];
    expect(groups.map((g) => g.id)).toEqual([...(example(h, 'listGroups', 200, 'groups') as JsonObject[]).map((g) => g.id), 'grp_new']);
  });
});

describe('message-send validation errors, each from its cause (part 7)', () => {
  const cases: Array<[string, (h: Harness) => unknown]> = [
    ['toXorGroupId', () => ({ to: '+14155550123', groupId: 'grp_6Tq8Wz2Lm4', fromNumberId: SMS_LINE.id, body: 'x' })],
    ['toXorGroupId', () => ({ fromNumberId: SMS_LINE.id, body: 'x' })],
    ['fromNumberXorId', () => ({ to: '+14155550123', fromNumber: SMS_LINE.number, fromNumberId: SMS_LINE.id, body: 'x' })],
    ['fromNumberXorId', () => ({ to: '+14155550123', body: 'x' })],
    ['noSuchGroup', () => ({ groupId: 'grp_someone_else', body: 'x' })],
    ['groupChannelMismatch', () => ({ groupId: 'grp_6Tq8Wz2Lm4', channel: 'sms', body: 'x' })],
    ['groupsUnsupportedOnChannel', () => ({ groupId: 'grp_3Hd9Pe5Ks1', body: 'x' })],
    ['whatsappNotConnected', () => ({ to: '+14155550123', fromNumberId: SMS_LINE.id, channel: 'whatsapp', body: 'x' })],
    ['unknownFromNumber', () => ({ to: '+14155550123', fromNumberId: 'pn_not_mine', body: 'x' })],
    ['channelNotOnNumber', () => ({ to: '+14155550123', fromNumberId: SMS_LINE.id, channel: 'imessage', body: 'x' })],
  ];
  for (const [name, body] of cases) {
    it(`${name}: ${JSON.stringify(body({} as Harness))}`, () => {
      const h = harness();
      expect(h.call('POST', '/api/v1/messages', body(h))).toEqual({ status: 400, body: example(h, 'sendMessage', 400, name) });
      expect(h.events('message.status_changed')).toEqual([]);
    });
  }

  it('whatsappNotConnected for a number still warming up, and the send works once it is ready', () => {
    const h = harness();
    const warming = h.addNumber('whatsappWarmingUp');
    const send = { to: '+447700900456', fromNumberId: warming.id, channel: 'whatsapp', body: 'x' };
    expect(h.call('POST', '/api/v1/messages', send)).toEqual({ status: 400, body: example(h, 'sendMessage', 400, 'whatsappNotConnected') });
    warming.whatsapp = { status: 'ready' };
    expect(h.call('POST', '/api/v1/messages', send).status).toBe(201);
  });

  it('a group send from another line than the group\'s is refused; from its own line it is sent with to null', () => {
    const h = harness();
    const line = h.addNumber('whatsappWarmingUp');
    line.whatsapp = { status: 'ready' };
    expect(h.call('POST', '/api/v1/messages', { groupId: 'grp_6Tq8Wz2Lm4', fromNumberId: SMS_LINE.id, body: 'x' })).toEqual({
      status: 400,
      body: example(h, 'sendMessage', 400, 'groupLineMismatch'),
    });
    const sent = h.call('POST', '/api/v1/messages', { groupId: 'grp_6Tq8Wz2Lm4', channel: 'whatsapp', body: 'The shuttle leaves at 8:15.' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ groupId: 'grp_6Tq8Wz2Lm4', to: null, channel: 'whatsapp', phoneNumberId: line.id, from: line.number });
  });

  it('WhatsApp: at most one attachment across media and mediaUrls', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    const two = whatsapp('+447700900456', { body: undefined, media: [{ url: 'https://cdn.example.org/a.png' }], mediaUrls: ['https://cdn.example.org/b.png'] });
    expect(h.call('POST', '/api/v1/messages', two)).toEqual({ status: 400, body: example(h, 'sendMessage', 400, 'whatsappOneAttachment') });
    // The same two attachments on SMS/MMS are fine.
    expect(h.call('POST', '/api/v1/messages', { ...two, channel: undefined, fromNumberId: SMS_LINE.id, to: '+14155550123' }).status).toBe(201);
  });

  it('WhatsApp: a body accompanies media only for an image or a video (by URL extension or contentType)', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    const refused = example(h, 'sendMessage', 400, 'whatsappBodyWithMedia');
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456', { mediaUrls: ['https://cdn.example.org/audio/welcome.m4a'] }))).toEqual({ status: 400, body: refused });
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456', { media: [{ url: 'https://cdn.example.org/x', contentType: 'application/pdf' }] }))).toEqual({ status: 400, body: refused });
    // An image with a caption is sent; audio alone is sent.
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456', { mediaUrls: ['https://cdn.example.org/passes/QX481.png'] })).status).toBe(201);
    h.sim.advance(1000);
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900457', { body: undefined, mediaUrls: ['https://cdn.example.org/audio/welcome.m4a'] })).status).toBe(201);
  });

  it('recipientNotOnWhatsapp by test value, only on a WhatsApp send', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    expect(h.call('POST', '/api/v1/messages', whatsapp(TEST.notOnWhatsapp))).toEqual({ status: 400, body: example(h, 'sendMessage', 400, 'recipientNotOnWhatsapp') });
    expect(h.call('POST', '/api/v1/messages', sms(TEST.notOnWhatsapp)).status).toBe(201);
  });

  it('smsFallbackThreadReply: a threaded reply to a message that came over the SMS fallback of an iMessage number', () => {
    const h = harness();
    const fallback = h.call('POST', '/api/v1/test/messages/inbound', { to: IMESSAGE_LINE.number, from: '+14155550123', body: 'hi', channel: 'sms' }).body as JsonObject;
    const viaImessage = h.call('POST', '/api/v1/test/messages/inbound', { to: IMESSAGE_LINE.number, from: '+14155550123', body: 'hi' }).body as JsonObject;
    expect(viaImessage.channel).toBe('imessage');
    const reply = (replyToId: string) => ({ to: '+14155550123', fromNumberId: IMESSAGE_LINE.id, body: 'Thanks', replyToId });
    expect(h.call('POST', '/api/v1/messages', reply(fallback.id))).toEqual({ status: 400, body: example(h, 'sendMessage', 400, 'smsFallbackThreadReply') });
    const threaded = h.call('POST', '/api/v1/messages', reply(viaImessage.id));
    expect(threaded.status).toBe(201);
    expect((threaded.body as JsonObject).replyToId).toBe(viaImessage.id);
  });
});

describe('destinations and WhatsApp access (part 7, test values)', () => {
  it('unsupported_region answers 403 and sends nothing', () => {
    const h = harness();
    const before = h.account().messages.length;
    expect(h.call('POST', '/api/v1/messages', sms(TEST.unsupportedRegion))).toEqual({ status: 403, body: example(h, 'sendMessage', 403, 'unsupportedRegion') });
    expect(h.account().messages).toHaveLength(before);
  });

  it('whatsapp_limited answers 403 on a new WhatsApp conversation; a reply to someone who wrote first works', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    expect(h.call('POST', '/api/v1/messages', whatsapp(TEST.whatsappLimited))).toEqual({ status: 403, body: example(h, 'sendMessage', 403, 'whatsappLimited') });
    h.call('POST', '/api/v1/test/messages/inbound', { to: WHATSAPP_LINE.number, from: TEST.whatsappLimited, body: 'hello?', channel: 'whatsapp' });
    expect(h.call('POST', '/api/v1/messages', whatsapp(TEST.whatsappLimited)).status).toBe(201);
  });

  it('wallet gating: 402 from a PAYG number at a zero balance, never from a FIXED number', () => {
    const h = harness();
    h.account().balance = 0;
    expect(h.call('POST', '/api/v1/messages', sms('+14155550123'))).toEqual({ status: 402, body: example(h, 'sendMessage', 402) });
    expect(h.call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: IMESSAGE_LINE.id, body: 'x' }).status).toBe(201);
    h.account().balance = 0.01;
    expect(h.call('POST', '/api/v1/messages', sms('+14155550123')).status).toBe(201);
  });
});

describe('sending limits (part 8)', () => {
  it('WhatsApp spacing: a second send from the number within 1 s answers 429 with Retry-After; after the gap it is sent', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456')).status).toBe(201);
    h.sim.advance(400);
    const refused = h.call('POST', '/api/v1/messages', whatsapp('+447700900457'));
    expect(refused).toEqual({ status: 429, body: example(h, 'sendMessage', 429, 'whatsappSpacing'), headers: { 'Retry-After': '1' } });
    // SMS from another number is not spaced.
    expect(h.call('POST', '/api/v1/messages', sms('+14155550123')).status).toBe(201);
    h.sim.advance(600);
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900457')).status).toBe(201);
  });

  it('WhatsApp unanswered: after 3 messages to one recipient with no reply, 429 until they reply', () => {
    const h = harness();
    h.addNumber('whatsappReadyNumber');
    for (let i = 0; i < 3; i++) {
      expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456')).status).toBe(201);
      h.sim.advance(1000);
    }
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456'))).toEqual({ status: 429, body: example(h, 'sendMessage', 429, 'whatsappUnanswered') });
    // Another recipient is not affected.
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900458')).status).toBe(201);
    h.sim.advance(1000);
    h.call('POST', '/api/v1/test/messages/inbound', { to: WHATSAPP_LINE.number, from: '+447700900456', body: 'Yes?', channel: 'whatsapp' });
    expect(h.call('POST', '/api/v1/messages', whatsapp('+447700900456')).status).toBe(201);
  });

  it('iMessage: 50 new conversations per number per day, then 429; replies and known recipients still go; the next day it resets', () => {
    const h = harness();
    const imessage = (to: string) => ({ to, fromNumberId: IMESSAGE_LINE.id, body: 'Hello' });
    for (let i = 0; i < 50; i++) expect(h.call('POST', '/api/v1/messages', imessage(`+1415556${String(i).padStart(4, '0')}`)).status).toBe(201);
    expect(h.call('POST', '/api/v1/messages', imessage('+14155569999'))).toEqual({ status: 429, body: example(h, 'sendMessage', 429, 'imessageNewConversations') });
    // A recipient already messaged is not a new conversation; nor is one who wrote first.
    expect(h.call('POST', '/api/v1/messages', imessage('+14155560000')).status).toBe(201);
    h.call('POST', '/api/v1/test/messages/inbound', { to: IMESSAGE_LINE.number, from: '+14155568888', body: 'hi' });
    expect(h.call('POST', '/api/v1/messages', imessage('+14155568888')).status).toBe(201);
    h.sim.advance(86_400_000);
    expect(h.call('POST', '/api/v1/messages', imessage('+14155569999')).status).toBe(201);
  });
});

describe('delivery (parts 3, 6)', () => {
  it('a sent message reports delivery as message.status_changed, in the shape of the messageStatusDelivered example', () => {
    const h = harness();
    const sent = h.call('POST', '/api/v1/messages', sms('+14155550123')).body as JsonObject;
    expect(h.events('message.status_changed')).toEqual([]);
    h.sim.advance(2000);
    const events = h.events('message.status_changed');
    expect(events).toHaveLength(1);
    const documented = h.sim.contract.componentExample('messageStatusDelivered') as JsonObject;
    expect(events[0]).toMatchObject({ object: 'event', version: 1, type: 'message.status_changed', relatedObject: { id: sent.id, type: 'message', url: null } });
    expect(events[0]!.data).toEqual({ ...documented.data, messageId: sent.id });
  });

  it('a send and an inbound message count in usage (part 4.3), a refused send does not', () => {
    const h = harness();
    const total = () => ((h.call('GET', '/api/v1/usage').body as JsonObject).totals as JsonObject).messages as number;
    const before = total();
    h.call('POST', '/api/v1/messages', sms('+14155550123'));
    h.call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550123', body: 'hi' });
    h.call('POST', '/api/v1/messages', sms(TEST.unsupportedRegion));
    expect(total()).toBe(before + 2);
  });

  it('a refused send reports nothing', () => {
    const h = harness();
    h.account().balance = 0;
    h.call('POST', '/api/v1/messages', sms('+14155550123'));
    h.sim.advance(5000);
    expect(h.events('message.status_changed')).toEqual([]);
  });
});

describe('typing (part 4.5)', () => {
  it('answers 200 done; on a standard SMS number it silently does nothing, and costs nothing', () => {
    const h = harness();
    h.account().balance = 0;
    const done = example(h, 'setTypingIndicator', 200, 'done');
    expect(h.call('POST', '/api/v1/typing', { toNumber: '+14155550123', value: true, fromNumber: SMS_LINE.number })).toEqual({ status: 200, body: done });
    expect(h.call('POST', '/api/v1/typing', { toNumber: '+14155550123', value: false, fromNumber: IMESSAGE_LINE.number })).toEqual({ status: 200, body: done });
    expect(h.account().balance).toBe(0);
  });

  it('answers the channel errors of a send: not connected, whatsapp_limited, channel down, unknown number', () => {
    const h = harness();
    const typing = (fromNumber: string, toNumber = '+447700900456', extra: JsonObject = {}) => ({ toNumber, value: true, fromNumber, ...extra });
    expect(h.call('POST', '/api/v1/typing', typing(SMS_LINE.number, '+447700900456', { channel: 'whatsapp' }))).toEqual({
      status: 400,
      body: example(h, 'setTypingIndicator', 400, 'whatsappNotConnected'),
    });
    expect(h.call('POST', '/api/v1/typing', typing('+19995550000'))).toEqual({ status: 400, body: example(h, 'setTypingIndicator', 400, 'unknownFromNumber') });
    h.addNumber('whatsappReadyNumber');
    expect(h.call('POST', '/api/v1/typing', typing(WHATSAPP_LINE.number, TEST.whatsappLimited))).toEqual({ status: 403, body: example(h, 'setTypingIndicator', 403, 'whatsappLimited') });
    expect(h.call('POST', '/api/v1/typing', typing(WHATSAPP_LINE.number, TEST.channelDown))).toEqual({ status: 503, body: example(h, 'setTypingIndicator', 503, 'whatsappChannelDown') });
    expect(h.call('POST', '/api/v1/typing', typing(WHATSAPP_LINE.number)).status).toBe(200);
  });
});

describe('test traffic (part 4.5 /api/v1/test/*, part 6)', () => {
  it('injects an inbound message with source internal: listed, and emitted as message.received with the listed id', () => {
    const h = harness();
    const injected = h.call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550123', body: 'Test inbound message' });
    expect(injected.status).toBe(201);
    expect(injected.body).toMatchObject({ phoneNumberId: SMS_LINE.id, to: SMS_LINE.number, from: '+14155550123', body: 'Test inbound message', source: 'internal', channel: 'sms', groupId: null });
    const listed = (h.call('GET', '/api/v1/messages').body as JsonObject[])[0]!;
    expect(listed).toEqual(injected.body);
    const received = h.events('message.received');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ relatedObject: { id: listed.id, type: 'message', url: null } });
    const { id, phoneNumberId: _line, ...rest } = listed;
    expect(received[0]!.data).toEqual({ messageId: id, ...rest });
  });

  it('answers 404 when to is not one of the account\'s numbers, or groupId not one of its groups', () => {
    const h = harness();
    expect(h.call('POST', '/api/v1/test/messages/inbound', { to: '+14155550000', from: '+14155550123', body: 'x' })).toEqual({
      status: 404,
      body: example(h, 'injectTestInboundMessage', 404, 'notYourNumber'),
    });
    expect(h.call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550123', groupId: 'grp_nope' })).toEqual({
      status: 404,
      body: example(h, 'injectTestInboundMessage', 404, 'noSuchGroup'),
    });
    expect(h.events('message.received')).toEqual([]);
  });

  it('a group message arrives once per line of the account in the group (to null, whatsapp)', () => {
    const h = harness();
    const one = h.addNumber('whatsappReadyNumber');
    const two = h.addNumber('whatsappWarmingUp');
    messagingState(h.account()).groupLines['grp_6Tq8Wz2Lm4'] = [one.id, two.id];
    const answer = h.call('POST', '/api/v1/test/messages/inbound', { to: one.number, from: '+447700900456', body: 'Running late', groupId: 'grp_6Tq8Wz2Lm4' });
    expect(answer.status).toBe(201);
    const received = h.events('message.received');
    expect(received).toHaveLength(2);
    const listed = (h.call('GET', '/api/v1/messages?groupId=grp_6Tq8Wz2Lm4').body as JsonObject[]).slice(0, 2);
    expect(received.map((e) => (e.data as JsonObject).messageId).sort()).toEqual(listed.map((m) => m.id).sort());
    expect(listed.map((m) => m.phoneNumberId).sort()).toEqual([one.id, two.id].sort());
    for (const event of received) expect(event.data).toMatchObject({ to: null, groupId: 'grp_6Tq8Wz2Lm4', channel: 'whatsapp', source: 'internal' });
  });
});

describe('on the real stateful mock over HTTP', () => {
  const mock = useStatefulMock();

  it('50 parallel sends on one key give 50 distinct listed messages', async () => {
    const call = client(mock().url, newKey('par'));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call('POST', '/api/v1/messages', sms('+14155550123', `parallel ${i}`))));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(50);
    const listed = (await call('GET', '/api/v1/messages')).body as JsonObject[];
    expect(listed.filter((m) => ids.has(m.id))).toHaveLength(50);
    expect(new Set(listed.slice(0, 50).map((m) => m.body))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `parallel ${i}`)));
  });

  it('the part 7 messages win over the gate\'s generic oneOf violation', async () => {
    const call = client(mock().url, newKey('xor'));
    const both = await call('POST', '/api/v1/messages', { to: '+14155550123', groupId: 'grp_6Tq8Wz2Lm4', fromNumberId: SMS_LINE.id, body: 'x' });
    expect(both.status).toBe(400);
    expect(both.body).toEqual(mock().simulator.contract.example('sendMessage', 400, 'toXorGroupId'));
    const neither = await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'x' });
    expect(neither.body).toEqual(mock().simulator.contract.example('sendMessage', 400, 'fromNumberXorId'));
    const since = await call('GET', '/api/v1/messages?since=yesterday');
    expect(since).toMatchObject({ status: 400, body: mock().simulator.contract.example('listMessages', 400, 'invalidSince') });
  });

  it('WhatsApp spacing answers 429 with a Retry-After header over HTTP', async () => {
    const key = newKey('spacing');
    const call = client(mock().url, key);
    const account = mock().simulator.accountForKey(key)!;
    account.numbers.push(mock().simulator.contract.componentExample('whatsappReadyNumber') as NumberRecord);
    // The last send is put ahead of the clock, so the next one falls inside the gap however slow the machine is.
    messagingState(account).whatsappLastAt[WHATSAPP_LINE.id] = mock().simulator.clock.now() + 5_000;
    const refused = await call('POST', '/api/v1/messages', whatsapp('+447700900456'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(mock().simulator.contract.example('sendMessage', 429, 'whatsappSpacing'));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('malformed JSON gets a 400 about the body as a whole, not an exactly-one message, and no `body` field key', async () => {
    const call = client(mock().url, newKey('malformed'));
    const answer = await call('POST', '/api/v1/messages', '{"to": ');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^The request body is not valid JSON/);
  });

  it('an injected inbound message is listed over HTTP with source internal', async () => {
    const call = client(mock().url, newKey('inject'));
    const injected = await call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550123', body: 'ping' });
    expect(injected.status).toBe(201);
    const listed = (await call('GET', '/api/v1/messages?direction=inbound')).body as JsonObject[];
    expect(listed[0]).toEqual(injected.body);
    expect(listed[0]!.source).toBe('internal');
  });
});
