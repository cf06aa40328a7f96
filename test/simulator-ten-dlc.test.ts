// 10DLC registration (parts 2, 3, 4.5, 7, 8) in the simulator: each rule of
// src/simulator/resources/ten-dlc.ts in-process (manual clock, sequential ids; requests checked
// by the contract as the gate does, answers validated against the contract), and a submission
// over the real stateful mock, JSON and multipart.
import { describe, expect, it } from 'vitest';
import { TEN_DLC_CARRIER_MS, TEN_DLC_REVIEW_MS, tenDlcFee } from '../src/simulator/resources/ten-dlc.js';
import type { FormPart, JsonObject } from '../src/simulator/types.js';
import { inProcessSimulator, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

const SEEDED_APPROVED = 'pn_8f3kq2m9x7';
const SEEDED_IMESSAGE = 'pn_5k1vt8e3qa';
const SOLE = { kind: 'sole_proprietor', brand: { vertical: 'HEALTHCARE' }, campaign: { messageFlow: 'Patients text START.' } };

function sim() {
  const { simulator, send, account } = inProcessSimulator({ key: 'sk_live_tendlc' });
  const call = (method: string, path: string, body?: unknown, options: { key?: string; form?: Record<string, FormPart> } = {}) => send(method, path, { body, ...options });
  const newNumber = (key?: string): string => call('POST', '/api/v1/numbers', {}, { key }).body.id;
  const example = (status: number, name: string) => simulator.contract.example('submitTenDlcRegistration', status, name);
  const testValue = (name: string) => simulator.contract.testValues('submitTenDlcRegistration').find((v) => v.name === name)!.value;
  const tenDlcOf = (id: string) => (call('GET', '/api/v1/numbers').body as JsonObject[]).find((n) => n.id === id)!.tenDlc;
  return { simulator, call, account, newNumber, example, testValue, tenDlcOf };
}

describe('10DLC (in-process)', () => {
  it('submission takes the 25.00 fee from the balance with a ledger item, answers in_review, and GET answers the registration', () => {
    const { simulator, call, account, newNumber, tenDlcOf } = sim();
    expect(tenDlcFee(simulator)).toBe(25);
    const id = newNumber();
    account().balance = 30;
    const submitted = call('POST', `/api/v1/numbers/${id}/10dlc`, SOLE);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ kind: 'sole_proprietor', status: 'in_review', reason: null, optInImageUrl: null, campaign: SOLE.campaign });
    expect(account().balance).toBe(5);
    expect(call('GET', '/api/v1/billing/activity?limit=1').body.items[0]).toMatchObject({ type: 'usage', amount: -25 });
    expect(call('GET', `/api/v1/numbers/${id}/10dlc`).body).toEqual(submitted.body);
    expect(tenDlcOf(id)).toEqual({ status: 'in_review', reason: null });
  });

  it('402 feeNotCovered when the balance is below the fee; nothing is registered', () => {
    const { call, account, newNumber, example } = sim();
    const id = newNumber();
    account().balance = 24.99;
    expect(call('POST', `/api/v1/numbers/${id}/10dlc`, SOLE)).toEqual({ status: 402, body: example(402, 'feeNotCovered') });
    expect(account().balance).toBe(24.99);
    expect(call('GET', `/api/v1/numbers/${id}/10dlc`).body.status).toBe('not_registered');
  });

  it('status moves in_review → with_carrier → approved only as the simulated clock advances', () => {
    const { simulator, call, newNumber, tenDlcOf } = sim();
    const id = newNumber();
    call('POST', `/api/v1/numbers/${id}/10dlc`, SOLE);
    const status = () => call('GET', `/api/v1/numbers/${id}/10dlc`).body.status;
    simulator.advance(TEN_DLC_REVIEW_MS - 1);
    expect(status()).toBe('in_review');
    simulator.advance(1);
    expect(status()).toBe('with_carrier');
    simulator.advance(TEN_DLC_CARRIER_MS);
    expect(status()).toBe('approved');
    expect(tenDlcOf(id)).toEqual({ status: 'approved', reason: null });
  });

  it('a test value ends in rejected with the documented reason; the resubmission is free and goes back to in_review', () => {
    const { simulator, call, account, newNumber, testValue, tenDlcOf } = sim();
    const reason = (simulator.contract.example('getTenDlcRegistration', 200, 'rejected') as JsonObject).reason;
    account().balance = 100;
    const id = newNumber();
    call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, brand: { ...SOLE.brand, phone: testValue('tenDlcRejectedInReview') } });
    simulator.advance(TEN_DLC_REVIEW_MS);
    expect(call('GET', `/api/v1/numbers/${id}/10dlc`).body).toMatchObject({ status: 'rejected', reason });
    expect(tenDlcOf(id)).toEqual({ status: 'rejected', reason });
    const balance = account().balance;
    const again = call('POST', `/api/v1/numbers/${id}/10dlc`, SOLE);
    expect(again.body).toMatchObject({ status: 'in_review', reason: null });
    expect(account().balance).toBe(balance);
    // Even with the wallet empty: no fee is due.
    const other = newNumber();
    call('POST', `/api/v1/numbers/${other}/10dlc`, { ...SOLE, brand: { ...SOLE.brand, phone: testValue('tenDlcRejectedByCarrier') } });
    simulator.advance(TEN_DLC_REVIEW_MS);
    expect(call('GET', `/api/v1/numbers/${other}/10dlc`).body.status).toBe('with_carrier');
    simulator.advance(TEN_DLC_CARRIER_MS);
    expect(call('GET', `/api/v1/numbers/${other}/10dlc`).body).toMatchObject({ status: 'rejected', reason });
    account().balance = 0;
    expect(call('POST', `/api/v1/numbers/${other}/10dlc`, SOLE).status).toBe(200);
  });

  it('403 tendlcNotApplicable on an iMessage or non-US number; 403 tendlcNotAvailable on a subscribed account without a registration', () => {
    const { call, account, newNumber, example } = sim();
    expect(call('POST', `/api/v1/numbers/${SEEDED_IMESSAGE}/10dlc`, SOLE)).toEqual({ status: 403, body: example(403, 'tendlcNotApplicable') });
    const uk = newNumber();
    account().numbers.find((n) => n.id === uk)!.number = '+447700900123';
    expect(call('POST', `/api/v1/numbers/${uk}/10dlc`, SOLE)).toEqual({ status: 403, body: example(403, 'tendlcNotApplicable') });
    const us = newNumber();
    account().billing.subscription = { cancelAtPeriodEnd: false, periodEnd: '2026-12-23T12:00:00.000Z', invoiceId: 'in_x', interval: 'monthly' };
    expect(call('POST', `/api/v1/numbers/${us}/10dlc`, SOLE)).toEqual({ status: 403, body: example(403, 'tendlcNotAvailable') });
    // With a registration (the seeded approved one) it is available.
    expect(call('POST', `/api/v1/numbers/${SEEDED_APPROVED}/10dlc`, { kind: 'business', brand: {}, campaign: { messageFlow: 'x' } }).status).toBe(200);
  });

  it('400 tendlcValidationFailed: vertical missing for a sole proprietor, phone one of the account’s own numbers', () => {
    const { call, account, newNumber, example } = sim();
    const id = newNumber();
    const documented = example(400, 'tendlcValidationFailed') as JsonObject;
    const messages = documented.error as JsonObject;
    const missing = call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, brand: {} });
    expect(missing).toEqual({ status: 400, body: { error: { vertical: messages.vertical }, code: documented.code } });
    const own = call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, brand: { vertical: 'RETAIL', phone: account().numbers[0]!.number } });
    expect(own).toEqual({ status: 400, body: { error: { phone: messages.phone }, code: documented.code } });
    expect(call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, brand: { phone: account().numbers[0]!.number } }).body.error).toEqual({ phone: messages.phone, vertical: messages.vertical });
    // A business needs no vertical; a phone that is not the account's is fine.
    expect(call('POST', `/api/v1/numbers/${id}/10dlc`, { kind: 'business', brand: { phone: '+13125559999' }, campaign: {} }).status).toBe(200);
  });

  it('brandId: unknown or someone else’s 404, not approved 409 (clears once approved), sole proprietor reuse 403, approved business reuse 200', () => {
    const { simulator, call, account, newNumber, example } = sim();
    account().balance = 1000;
    account('sk_live_other').balance = 1000;
    const a = newNumber();
    const b = newNumber();
    const c = newNumber();
    expect(call('POST', `/api/v1/numbers/${a}/10dlc`, { kind: 'business', brand: { brandId: 'BRD_NOPE' }, campaign: {} })).toEqual({ status: 404, body: example(404, 'tendlcBrandNotFound') });
    // Someone else's brand answers exactly as an unknown one.
    const foreignNumber = newNumber('sk_live_other');
    const foreign = call('POST', `/api/v1/numbers/${foreignNumber}/10dlc`, { kind: 'business', brand: {}, campaign: {} }, { key: 'sk_live_other' }).body.brand.brandId;
    expect(call('POST', `/api/v1/numbers/${a}/10dlc`, { kind: 'business', brand: { brandId: foreign }, campaign: {} })).toEqual({ status: 404, body: example(404, 'tendlcBrandNotFound') });
    // A new business brand, not approved yet: 409 until it is.
    const business = call('POST', `/api/v1/numbers/${a}/10dlc`, { kind: 'business', brand: {}, campaign: {} }).body.brand.brandId;
    expect(call('POST', `/api/v1/numbers/${b}/10dlc`, { kind: 'business', brand: { brandId: business }, campaign: {} })).toEqual({ status: 409, body: example(409, 'tendlcBrandNotApproved') });
    simulator.advance(TEN_DLC_REVIEW_MS + TEN_DLC_CARRIER_MS);
    expect(call('POST', `/api/v1/numbers/${b}/10dlc`, { kind: 'business', brand: { brandId: business }, campaign: {} }).status).toBe(200);
    // A sole proprietor brand, even approved, serves one campaign only.
    const sole = call('POST', `/api/v1/numbers/${c}/10dlc`, SOLE).body.brand.brandId;
    simulator.advance(TEN_DLC_REVIEW_MS + TEN_DLC_CARRIER_MS);
    const d = newNumber();
    expect(call('POST', `/api/v1/numbers/${d}/10dlc`, { ...SOLE, brand: { vertical: 'HEALTHCARE', brandId: sole } })).toEqual({ status: 403, body: example(403, 'tendlcBrandNotReusable') });
    // The seeded approved business brand can be reused.
    const seededBrand = (simulator.contract.example('getTenDlcRegistration', 200, 'approved') as JsonObject).brand.brandId;
    expect(call('POST', `/api/v1/numbers/${d}/10dlc`, { kind: 'business', brand: { brandId: seededBrand }, campaign: {} }).status).toBe(200);
  });

  it('unknown number ids 404 on submit and GET; a number without a registration answers not_registered', () => {
    const { simulator, call, newNumber } = sim();
    expect(call('POST', '/api/v1/numbers/pn_nope/10dlc', SOLE)).toEqual({ status: 404, body: simulator.contract.example('submitTenDlcRegistration', 404, 'numberNotFound') });
    expect(call('GET', '/api/v1/numbers/pn_nope/10dlc').status).toBe(404);
    expect(call('GET', `/api/v1/numbers/${newNumber()}/10dlc`).body).toEqual({ status: 'not_registered', reason: null, optInImageUrl: null });
    expect(call('GET', `/api/v1/numbers/${SEEDED_APPROVED}/10dlc`).body.status).toBe('approved');
  });

  it('multipart: the data part is the registration, the optInImage file sets optInImageUrl, omitted keeps it, null removes it', () => {
    const { call, newNumber } = sim();
    const id = newNumber();
    const png: FormPart = { value: new Uint8Array([137, 80, 78, 71]), filename: 'opt-in.png', contentType: 'image/png' };
    const first = call('POST', `/api/v1/numbers/${id}/10dlc`, undefined, { form: { data: { value: JSON.stringify(SOLE) }, optInImage: png } });
    expect(first.status).toBe(200);
    expect(first.body.optInImageUrl).toMatch(new RegExp(`${id}/opt-in\\.png$`));
    const kept = call('POST', `/api/v1/numbers/${id}/10dlc`, undefined, { form: { data: { value: JSON.stringify(SOLE) } } });
    expect(kept.body.optInImageUrl).toBe(first.body.optInImageUrl);
    const removed = call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, campaign: { ...SOLE.campaign, optInImage: null } });
    expect(removed.body.optInImageUrl).toBeNull();
    expect(call('POST', `/api/v1/numbers/${id}/10dlc`, undefined, { form: { data: { value: 'not json' } } }).status).toBe(400);
    const gif: FormPart = { value: new Uint8Array(2 * 1024 * 1024 + 1), contentType: 'image/gif' };
    expect(call('POST', `/api/v1/numbers/${id}/10dlc`, undefined, { form: { data: { value: JSON.stringify(SOLE) }, optInImage: gif } }).status).toBe(400);
    const noVertical = call('POST', `/api/v1/numbers/${id}/10dlc`, undefined, { form: { data: { value: JSON.stringify({ ...SOLE, brand: {} }) } } });
    expect(noVertical.body.code).toBe('tendlc_validation_failed');
  });
});

describe('10DLC (stateful mock over HTTP)', () => {
  const mock = useStatefulMock();

  it('JSON: fee, in_review, approved after the clock is advanced; vertical missing gives tendlc_validation_failed', async () => {
    const call = client(mock().url, newKey('tendlc'));
    const id = (await call('POST', '/api/v1/numbers', {})).body.id;
    const before = (await call('GET', '/api/v1/billing')).body.balance;
    const missing = await call('POST', `/api/v1/numbers/${id}/10dlc`, { ...SOLE, brand: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('tendlc_validation_failed');
    const submitted = await call('POST', `/api/v1/numbers/${id}/10dlc`, SOLE);
    expect(submitted.status).toBe(200);
    expect((await call('GET', '/api/v1/billing')).body.balance).toBe(before - 25);
    await call('POST', '/__mock/clock/advance', { seconds: (TEN_DLC_REVIEW_MS + TEN_DLC_CARRIER_MS) / 1000 });
    expect((await call('GET', `/api/v1/numbers/${id}/10dlc`)).body.status).toBe('approved');
  });

  it('multipart with a data part and a screenshot', async () => {
    const key = newKey('tendlc');
    const call = client(mock().url, key);
    const id = (await call('POST', '/api/v1/numbers', {})).body.id;
    const form = new FormData();
    form.append('data', new Blob([JSON.stringify(SOLE)], { type: 'application/json' }));
    form.append('optInImage', new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), 'opt-in.png');
    const response = await fetch(new URL(`/api/v1/numbers/${id}/10dlc`, mock().url), { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ status: 'in_review' });
    expect(body.optInImageUrl).toMatch(/opt-in\.png$/);
  });
});
