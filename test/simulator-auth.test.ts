// Sign-up and registration (parts 3, 4.1, 5.3 to 5.5): each rule of src/simulator/resources/auth.ts,
// in-process (every answer checked against the contract) and the whole walk over HTTP on the real
// stateful mock.
import { describe, expect, it } from 'vitest';
import { COUPON_CREDIT_USD, MAX_CODES_SENT, MAX_WRONG_CODES, SIGNUP_STAGES, authModule, canonicalEmail, signupStage, signupTransitions } from '../src/simulator/resources/auth.js';
import { inProcessSimulator, simRequest, testValue, useStatefulMock } from './helpers/simulator-harness.js';
import { client } from './helpers/stateful-mock.js';

const CODE = testValue('signupCode');
const WRONG = CODE === '000000' ? '111111' : '000000';

/** No default key: `call` sends no Authorization header unless given one. */
const sim = () => inProcessSimulator();

type Call = ReturnType<typeof sim>['call'];

/** signup → verify: the registrationId of a new email. */
function register(call: Call, email: string, coupon?: string): string {
  const { verificationId } = call('POST', '/api/v1/auth/signup', { email, ...(coupon ? { coupon } : {}) }).body;
  return call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).body.registrationId;
}

/** A whole sign-up: the key and the provisioned number. */
function signUpFully(call: Call, email: string, phoneNumber: string, coupon?: string): { apiKey: string; phoneNumber: string } {
  const registrationId = register(call, email, coupon);
  expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber }).status).toBe(200);
  const done = call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
  expect(done.status).toBe(200);
  return done.body;
}

describe('the signUp state machine of the contract drives the module (part 3)', () => {
  it('binds every transition to an operation the auth module handles, and names only states the module stands in', () => {
    const { simulator } = sim();
    const transitions = signupTransitions(simulator);
    expect(transitions.length).toBeGreaterThan(0);
    for (const transition of transitions) expect(Object.keys(authModule.handlers)).toContain(transition.operationId);
    const stages = new Set<string>(Object.values(SIGNUP_STAGES));
    for (const transition of transitions) {
      if (transition.from !== 'none') expect(stages).toContain(transition.from);
      expect(stages).toContain(transition.to);
    }
  });

  it('a sign-up stands in the state each transition leads to', () => {
    const { simulator, call } = sim();
    const stageOf = (verificationId: string) => signupStage(simulator.state.signups[verificationId]!);
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email: 'walk@example.com' }).body;
    expect(stageOf(verificationId)).toBe('email code pending');
    const { registrationId } = call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).body;
    expect(stageOf(verificationId)).toBe('registration pending');
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550123' });
    expect(stageOf(verificationId)).toBe('phone code pending');
    call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect(stageOf(verificationId)).toBe('account created');
  });
});

describe('verify (parts 3, 4.1, 5.3)', () => {
  it('the sign-up code is right, any other code is 401 wrongCode', () => {
    const { simulator, call } = sim();
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email: 'code@example.com' }).body;
    const wrong = call('POST', '/api/v1/auth/verify', { verificationId, code: WRONG });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(simulator.contract.example('verifyEmail', 401, 'wrongCode'));
    const right = call('POST', '/api/v1/auth/verify', { verificationId, code: CODE });
    expect(right.status).toBe(200);
    expect(right.body.registrationId).toMatch(/^reg_/);
    expect(right.body.apiKey).toBeUndefined();
  });

  it('a used code is refused: the second verify of one verification is 401', () => {
    const { call } = sim();
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email: 'used@example.com' }).body;
    expect(call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).status).toBe(200);
    expect(call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).status).toBe(401);
  });

  it('the signup code can be changed (options.signupCode)', () => {
    const { answer } = inProcessSimulator({ options: { signupCode: '654321' } });
    const handle = (pathname: string, body: unknown) => answer(simRequest('POST', pathname, { body }));
    const { verificationId } = handle('/api/v1/auth/signup', { email: 'flag@example.com' }).body as { verificationId: string };
    expect(handle('/api/v1/auth/verify', { verificationId, code: CODE }).status).toBe(401);
    expect(handle('/api/v1/auth/verify', { verificationId, code: '654321' }).status).toBe(200);
  });

  it(`after ${MAX_WRONG_CODES} wrong codes every further attempt is 429, even the right code`, () => {
    const { call } = sim();
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email: 'guess@example.com' }).body;
    for (let i = 0; i < MAX_WRONG_CODES; i++) expect(call('POST', '/api/v1/auth/verify', { verificationId, code: WRONG }).status).toBe(401);
    expect(call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).status).toBe(429);
  });

  it('the email of an existing account signs in with a new key, shown once, that opens that account', () => {
    const { simulator, call } = sim();
    const created = signUpFully(call, 'ada@example.com', '+14155550123');
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email: 'ada@example.com' }).body;
    const signedIn = call('POST', '/api/v1/auth/verify', { verificationId, code: CODE });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.registrationId).toBeUndefined();
    expect(signedIn.body.apiKey).toMatch(/^sk_live_/);
    expect(signedIn.body.apiKey).not.toBe(created.apiKey);
    const accountId = simulator.state.keys[created.apiKey];
    expect(simulator.state.keys[signedIn.body.apiKey]).toBe(accountId);
    // Only previews afterwards (part 5.3).
    const account = call('GET', '/api/v1/account', undefined, signedIn.body.apiKey).body;
    expect(account.apiKeys).toHaveLength(2);
    expect(JSON.stringify(account)).not.toContain(signedIn.body.apiKey);
    expect(Object.keys(simulator.state.accounts).filter((id) => simulator.state.accounts[id]!.email === 'ada@example.com')).toHaveLength(1);
  });
});

describe('email canonicalization (part 4.1)', () => {
  it('canonicalEmail drops +tag, gmail dots, reads googlemail.com as gmail.com', () => {
    expect(canonicalEmail('Ada.Lovelace+news@googlemail.com')).toBe('adalovelace@gmail.com');
    expect(canonicalEmail('ada+x@example.com')).toBe('ada@example.com');
    expect(canonicalEmail('a.da@example.com')).toBe('a.da@example.com');
  });

  it('+tag, gmail dots and googlemail.com reach one account, created under the canonical address', () => {
    const { simulator, call } = sim();
    const created = signUpFully(call, 'ada.lovelace+signup@gmail.com', '+14155550124');
    const accountId = simulator.state.keys[created.apiKey]!;
    expect(simulator.state.accounts[accountId]!.email).toBe('adalovelace@gmail.com');
    for (const alias of ['adalovelace@googlemail.com', 'a.d.a.lovelace+other@gmail.com', 'AdaLovelace@gmail.com']) {
      const { verificationId } = call('POST', '/api/v1/auth/signup', { email: alias }).body;
      const answer = call('POST', '/api/v1/auth/verify', { verificationId, code: CODE });
      expect(answer.body.apiKey, alias).toBeDefined();
      expect(simulator.state.keys[answer.body.apiKey]).toBe(accountId);
    }
  });
});

describe('register-number (parts 3, 4.1, 5.5)', () => {
  it('the same number re-sends; a different number replaces the pending one', () => {
    const { simulator, call } = sim();
    const registrationId = register(call, 'swap@example.com');
    expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550125' }).status).toBe(200);
    expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550125' }).status).toBe(200);
    expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550126' }).status).toBe(200);
    call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect(simulator.state.boundNumbers['+14155550126']).toBeDefined();
    expect(simulator.state.boundNumbers['+14155550125']).toBeUndefined();
  });

  it('a number bound to another account is 409 numberBound', () => {
    const { simulator, call } = sim();
    signUpFully(call, 'first@example.com', '+14155550127');
    const registrationId = register(call, 'second@example.com');
    const answer = call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550127' });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(simulator.contract.example('registerNumber', 409, 'numberBound'));
  });

  it('a number the service provisioned is refused with 409 serviceNumber (inferred)', () => {
    const { simulator, call } = sim();
    const first = signUpFully(call, 'owner@example.com', '+14155550128');
    const registrationId = register(call, 'other@example.com');
    const answer = call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: first.phoneNumber });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(simulator.contract.example('registerNumber', 409, 'serviceNumber'));
  });

  it('a number a seeded account holds is a service number too: 409 serviceNumber', () => {
    const { simulator, call } = sim();
    call('GET', '/api/v1/account', undefined, 'sk_live_demo');
    const seeded = simulator.state.accounts[simulator.state.keys['sk_live_demo']!]!.numbers[0]!.number as string;
    const registrationId = register(call, 'seeded@example.com');
    const answer = call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: seeded });
    expect([answer.status, answer.body]).toEqual([409, simulator.contract.example('registerNumber', 409, 'serviceNumber')]);
  });

  it('an unknown or complete registration is 409 registrationComplete', () => {
    const { simulator, call } = sim();
    const expected = simulator.contract.example('registerNumber', 409, 'registrationComplete');
    const unknown = call('POST', '/api/v1/auth/register-number', { registrationId: 'reg_nope', phoneNumber: '+14155550129' });
    expect([unknown.status, unknown.body]).toEqual([409, expected]);
    const registrationId = register(call, 'done@example.com');
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550130' });
    call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    const again = call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550131' });
    expect([again.status, again.body]).toEqual([409, expected]);
  });

  it(`more than ${MAX_CODES_SENT} codes for one registration is 429`, () => {
    const { call } = sim();
    const registrationId = register(call, 'spam@example.com');
    for (let i = 0; i < MAX_CODES_SENT; i++) expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550132' }).status).toBe(200);
    expect(call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550132' }).status).toBe(429);
  });
});

describe('verify-number (parts 3, 4.1, 5.3)', () => {
  it('creates a free account with no credit, issues the key once, binds the verified number and provisions a first number', () => {
    const { simulator, call } = sim();
    const registrationId = register(call, 'new@example.com');
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550133' });
    const done = call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect(done.status).toBe(200);
    expect(done.body.apiKey).toMatch(/^sk_live_/);
    // phoneNumber is the provisioned service number, not the verified one.
    expect(done.body.phoneNumber).not.toBe('+14155550133');
    const account = simulator.state.accounts[simulator.state.keys[done.body.apiKey]!]!;
    expect(simulator.state.boundNumbers['+14155550133']).toBe(account.id);
    expect(simulator.state.serviceNumbers[done.body.phoneNumber]).toBe(account.id);
    expect(account.balance).toBe(0);
    const record = call('GET', '/api/v1/account', undefined, done.body.apiKey).body;
    expect(record.limits).toEqual(expect.objectContaining({ maxCallDurationSeconds: expect.any(Number) }));
    expect(account.numbers.at(-1)!.number).toBe(done.body.phoneNumber);
    expect(account.numbers).toHaveLength(1);
    // The key was shown once: a retry of the finished registration gets no key.
    expect(call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE }).status).toBe(409);
  });

  it('two sign-ups get two different service numbers', () => {
    const { call } = sim();
    const a = signUpFully(call, 'a@example.com', '+14155550134');
    const b = signUpFully(call, 'b@example.com', '+14155550135');
    expect(a.phoneNumber).not.toBe(b.phoneNumber);
  });

  it('a wrong code is 401 and the right one still works', () => {
    const { simulator, call } = sim();
    const registrationId = register(call, 'typo@example.com');
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550136' });
    const wrong = call('POST', '/api/v1/auth/verify-number', { registrationId, code: WRONG });
    expect([wrong.status, wrong.body]).toEqual([401, simulator.contract.example('verifyPhoneNumber', 401, 'wrongCode')]);
    expect(call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE }).status).toBe(200);
  });

  it('no number registered is 409 noNumberRegistered', () => {
    const { simulator, call } = sim();
    const registrationId = register(call, 'nonumber@example.com');
    const answer = call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect([answer.status, answer.body]).toEqual([409, simulator.contract.example('verifyPhoneNumber', 409, 'noNumberRegistered')]);
  });

  it('the provisioningFails test value: 502 once, then the retry with the same registrationId succeeds without a new code', () => {
    const { simulator, call } = sim();
    const registrationId = register(call, 'retry@example.com');
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: testValue('provisioningFails') });
    const failed = call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect([failed.status, failed.body]).toEqual([502, simulator.contract.example('verifyPhoneNumber', 502, 'provisioningFailed')]);
    // The phone stays verified: the retry needs no right code.
    const retried = call('POST', '/api/v1/auth/verify-number', { registrationId, code: WRONG });
    expect(retried.status).toBe(200);
    expect(retried.body.apiKey).toMatch(/^sk_live_/);
  });
});

describe('coupons (part 5.4)', () => {
  it('a valid coupon adds its credit when the account is created; the account stays free', () => {
    const { simulator, call } = sim();
    const done = signUpFully(call, 'coupon@example.com', '+14155550137', testValue('couponCredit'));
    const account = simulator.state.accounts[simulator.state.keys[done.apiKey]!]!;
    expect(account.balance).toBe(COUPON_CREDIT_USD);
    expect(account.paid).toBe(false);
  });

  it('an invalid coupon is refused at signup with 400 couponRefused (inferred), before any code is sent', () => {
    const { simulator, call } = sim();
    for (const coupon of [testValue('couponRefused'), 'MADEUP']) {
      const answer = call('POST', '/api/v1/auth/signup', { email: 'bad@example.com', coupon });
      expect([answer.status, answer.body]).toEqual([400, simulator.contract.example('signUp', 400, 'couponRefused')]);
    }
    expect(Object.keys(simulator.state.signups)).toHaveLength(0);
  });
});

describe('the sign-up over HTTP on the stateful mock', () => {
  const mock = useStatefulMock();

  it('signup → verify → register-number → verify-number gives a working key and a listed first number', async () => {
    const anon = client(mock().url, null);
    const email = `http+${Date.now()}@gmail.com`;
    const signup = await anon('POST', '/api/v1/auth/signup', { email });
    expect(signup.status).toBe(200);
    const wrong = await anon('POST', '/api/v1/auth/verify', { verificationId: signup.body.verificationId, code: WRONG });
    expect(wrong.status).toBe(401);
    const verified = await anon('POST', '/api/v1/auth/verify', { verificationId: signup.body.verificationId, code: CODE });
    expect(verified.status).toBe(200);
    const { registrationId } = verified.body;
    expect((await anon('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550138' })).status).toBe(200);
    const done = await anon('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect(done.status).toBe(200);
    const account = await client(mock().url, done.body.apiKey)('GET', '/api/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.limits).not.toBeNull();
    const numbers = await client(mock().url, done.body.apiKey)('GET', '/api/v1/numbers');
    expect(numbers.status).toBe(200);
    expect(JSON.stringify(numbers.body)).toContain(done.body.phoneNumber);
  });
});
