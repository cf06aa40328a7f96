// Numbers (parts 2, 3, 4.5, 8) in the simulator: each rule of src/simulator/resources/numbers.ts
// in-process (manual clock, sequential ids; every request checked by the contract as the gate
// does, every answer validated against the contract), and provisioning over the real stateful mock.
import { describe, expect, it } from 'vitest';
import { findNumber, isWalletGated, WHATSAPP_WARMUP_MS } from '../src/simulator/resources/numbers.js';
import type { JsonObject } from '../src/simulator/types.js';
import type { NumberRecord } from '../src/simulator/records.js';
import { document, inProcessSimulator, useStatefulMock, type InProcessInit } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

const sim = (seed?: InProcessInit['seed']) => inProcessSimulator({ key: 'sk_live_numbers', seed });

describe('numbers (in-process)', () => {
  it('a provisioned number answers 201 in the PhoneNumber shape, is listed newest first and is a service number', () => {
    const { simulator, call, account } = sim();
    const before = call('GET', '/api/v1/numbers').body as JsonObject[];
    const created = call('POST', '/api/v1/numbers', { nickname: 'Front desk' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ nickname: 'Front desk', billingMode: 'PAYG', maxCallDurationSeconds: null, tenDlc: { status: 'not_registered', reason: null } });
    expect(created.body.inboundPrompt).toBe((simulator.contract.example('createNumber', 201, 'usPaygNumber') as JsonObject).inboundPrompt);
    const after = call('GET', '/api/v1/numbers').body as JsonObject[];
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]).toEqual(created.body);
    expect(simulator.state.serviceNumbers[created.body.number]).toBe(account().id);
    // Part 7.4: not idempotent, a second provision is another number.
    expect(call('POST', '/api/v1/numbers', {}).body.number).not.toBe(created.body.number);
  });

  it('whatsapp: true provisions a number bought warmed (ready, part 3)', () => {
    const { call } = sim();
    const created = call('POST', '/api/v1/numbers', { whatsapp: true });
    expect(created.status).toBe(201);
    expect(created.body.whatsapp).toEqual({ status: 'ready' });
    expect(created.body.capabilities).toContain('whatsapp');
    expect(call('POST', '/api/v1/numbers', {}).body.whatsapp).toBeUndefined();
  });

  it('the whatsappUnavailable test value answers 503 and buys nothing', () => {
    const { simulator, call, account } = sim();
    const value = simulator.contract.testValues('createNumber').find((entry) => entry.name === 'whatsappUnavailable')!;
    const count = account().numbers.length;
    const balance = account().balance;
    const answer = call('POST', '/api/v1/numbers', { whatsapp: true, nickname: value.value });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(simulator.contract.example('createNumber', 503, 'whatsappUnavailable'));
    expect(account().numbers).toHaveLength(count);
    expect(account().balance).toBe(balance);
  });

  it('wallet gating: a PAYG account at or below zero gets 402; a subscribed account (FIXED numbers) is never gated', () => {
    const { call, account } = sim();
    account().balance = 0;
    expect(call('POST', '/api/v1/numbers', {}).status).toBe(402);
    account().balance = 0.01;
    expect(call('POST', '/api/v1/numbers', {}).status).toBe(201);
    account().balance = -5;
    account().billing.subscription = { cancelAtPeriodEnd: false, periodEnd: '2026-12-23T12:00:00.000Z', invoiceId: 'in_x', interval: 'monthly' };
    const fixed = call('POST', '/api/v1/numbers', {});
    expect(fixed.status).toBe(201);
    expect(fixed.body.billingMode).toBe('FIXED');
  });

  it('isWalletGated and findNumber: PAYG at or below zero is gated, FIXED never; by id or number', () => {
    const { account } = sim();
    const a = account();
    const [first] = a.numbers;
    expect(findNumber(a, { id: first!.id })).toBe(first);
    expect(findNumber(a, { number: first!.number })).toBe(first);
    expect(findNumber(a, { id: first!.id, number: '+10000000000' })).toBeUndefined();
    expect(findNumber(a, {})).toBeUndefined();
    a.balance = 0;
    expect(isWalletGated(a, { billingMode: 'PAYG' })).toBe(true);
    expect(isWalletGated(a, { billingMode: 'FIXED' })).toBe(false);
    a.balance = 1;
    expect(isWalletGated(a, { billingMode: 'PAYG' })).toBe(false);
  });

  it('PATCH keeps maxCallDurationSeconds and inboundPrompt; null clears the cap; the list shows it', () => {
    const { call } = sim();
    const id = call('POST', '/api/v1/numbers', {}).body.id;
    const patched = call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: 900, inboundPrompt: 'Answer for Rivera Dental.' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, maxCallDurationSeconds: 900, inboundPrompt: 'Answer for Rivera Dental.' });
    const listed = (call('GET', '/api/v1/numbers').body as JsonObject[]).find((n) => n.id === id)!;
    expect(listed).toMatchObject({ maxCallDurationSeconds: 900, inboundPrompt: 'Answer for Rivera Dental.' });
    expect(call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: null }).body).toMatchObject({ maxCallDurationSeconds: null, inboundPrompt: 'Answer for Rivera Dental.' });
  });

  it('PATCH: outside 60..3600 is 400 by the gate; above a free account ceiling is 400 aboveFreeCeiling, a paid one may', () => {
    const { simulator, call, account } = sim();
    const id = call('POST', '/api/v1/numbers', {}).body.id;
    expect(call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: 59 }).status).toBe(400);
    account().paid = false;
    const refused = call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: 600 });
    expect(refused).toEqual({ status: 400, body: simulator.contract.example('updateNumber', 400, 'aboveFreeCeiling') });
    expect(findNumber(account(), { id })!.maxCallDurationSeconds).toBeNull();
    expect(call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: 300 }).status).toBe(200);
    account().paid = true;
    expect(call('PATCH', `/api/v1/numbers/${id}`, { maxCallDurationSeconds: 600 }).body.maxCallDurationSeconds).toBe(600);
  });

  it('PATCH of an unknown id, or of another account’s number, is 404', () => {
    const { simulator, call } = sim();
    const other = call('POST', '/api/v1/numbers', {}, 'sk_live_other').body.id;
    expect(call('PATCH', '/api/v1/numbers/pn_nope', { inboundPrompt: 'x' })).toEqual({ status: 404, body: simulator.contract.example('updateNumber', 404) });
    expect(call('PATCH', `/api/v1/numbers/${other}`, { inboundPrompt: 'x' }).status).toBe(404);
  });

  it('tenDlc is null exactly for a non-US number, an imessage number, or a non-PAYG account without a registration', () => {
    const { call, account } = sim();
    const a = account();
    const us = call('POST', '/api/v1/numbers', {}).body;
    a.numbers.push({ ...us, id: 'pn_uk', number: '+447700900123' });
    a.numbers.push({ ...us, id: 'pn_imsg', number: '+14155550142', capabilities: ['imessage', 'sms', 'voice'] });
    let list = call('GET', '/api/v1/numbers').body as JsonObject[];
    const tenDlc = (id: string) => list.find((n) => n.id === id)!.tenDlc;
    expect(tenDlc(us.id)).toEqual({ status: 'not_registered', reason: null });
    expect(tenDlc('pn_uk')).toBeNull();
    expect(tenDlc('pn_imsg')).toBeNull();
    // Not pay-as-you-go (a subscription is active): null without a registration, the registration's state with one.
    a.billing.subscription = { cancelAtPeriodEnd: false, periodEnd: '2026-12-23T12:00:00.000Z', invoiceId: 'in_x', interval: 'monthly' };
    list = call('GET', '/api/v1/numbers').body as JsonObject[];
    expect(tenDlc(us.id)).toBeNull();
    a.tenDlc[us.id] = { kind: 'business', brand: {}, campaign: {}, status: 'rejected', reason: 'Fix it.', optInImageUrl: null };
    list = call('GET', '/api/v1/numbers').body as JsonObject[];
    expect(tenDlc(us.id)).toEqual({ status: 'rejected', reason: 'Fix it.' });
  });

  it('a customer-connected WhatsApp number warming_up becomes ready after about 6 hours of simulated time only', () => {
    const { simulator, call } = sim({
      default: { paid: true, balance: 10, numbers: [simulator0Example('whatsappWarmingUp')] },
    });
    const status = () => (call('GET', '/api/v1/numbers').body as JsonObject[])[0]!.whatsapp.status;
    expect(status()).toBe('warming_up');
    simulator.advance(WHATSAPP_WARMUP_MS - 60_000);
    expect(status()).toBe('warming_up');
    simulator.advance(60_000);
    expect(status()).toBe('ready');
  });
});

function simulator0Example(name: string): NumberRecord {
  const examples = (document.components as JsonObject).examples as JsonObject;
  return JSON.parse(JSON.stringify(examples[name].value)) as NumberRecord;
}

describe('numbers (stateful mock over HTTP)', () => {
  const mock = useStatefulMock();

  it('a provisioned number is listed; PATCH keeps its cap and prompt; unknown ids 404', async () => {
    const call = client(mock().url, newKey('numbers'));
    const created = await call('POST', '/api/v1/numbers', { whatsapp: true });
    expect(created.status).toBe(201);
    expect(created.body.whatsapp).toEqual({ status: 'ready' });
    const listed = await call('GET', '/api/v1/numbers');
    expect(listed.body[0].id).toBe(created.body.id);
    const patched = await call('PATCH', `/api/v1/numbers/${created.body.id}`, { maxCallDurationSeconds: 1200, inboundPrompt: 'Hello.' });
    expect(patched.status).toBe(200);
    const again = await call('GET', '/api/v1/numbers');
    expect(again.body[0]).toMatchObject({ maxCallDurationSeconds: 1200, inboundPrompt: 'Hello.' });
    expect((await call('PATCH', '/api/v1/numbers/pn_unknown', { inboundPrompt: 'x' })).status).toBe(404);
  });

  it('an empty wallet gates provisioning with 402 (set through the control surface)', async () => {
    const key = newKey('numbers');
    const call = client(mock().url, key);
    expect((await call('PUT', '/__mock/wallet', { balance: 0 })).status).toBe(200);
    expect((await call('POST', '/api/v1/numbers', {})).status).toBe(402);
  });
});
