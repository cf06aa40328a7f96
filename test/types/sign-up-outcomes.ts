// Type fixture for part 4.1's two outcomes of verify (checked by test/client-types.test.ts): "if
// `registrationId` is present the flow is unfinished", so that field's value narrows the union,
// and the number verify-number provisions is an E.164 string a send can come from.
import { createClient } from '../../src/client/index.js';
import type { SendMessageRequest } from '../../src/index.js';

const signup = createClient({ apiKey: null, baseUrl: 'mock' });

export async function narrowed(): Promise<SendMessageRequest | string> {
  const { data: verified } = await signup.POST('/api/v1/auth/verify', { body: { verificationId: 'ver_1', code: '123456' } });
  if (typeof verified.registrationId === 'string') {
    const registrationId: string = verified.registrationId;
    const { data: created } = await signup.POST('/api/v1/auth/verify-number', { body: { registrationId, code: '123456' } });
    const key: string = created.apiKey;
    void key;
    if (created.phoneNumber === undefined) return 'no number';
    return { to: '+14155550123', fromNumber: created.phoneNumber, body: 'Hello' };
  }
  // Without a registrationId, the outcome is the sign-in: its key is a string.
  const key: string = verified.apiKey;
  return key;
}

export async function presence(): Promise<string> {
  const { data: verified } = await signup.POST('/api/v1/auth/verify', { body: { verificationId: 'ver_1', code: '123456' } });
  if (verified.registrationId !== undefined) return verified.registrationId;
  return verified.apiKey;
}

export async function unnarrowed(): Promise<void> {
  const { data: verified } = await signup.POST('/api/v1/auth/verify', { body: { verificationId: 'ver_1', code: '123456' } });
  // @ts-expect-error TS2322 before narrowing, the outcome may be the pending one, which has no key
  const key: string = verified.apiKey;
  // @ts-expect-error TS2322 nor a registrationId on the sign-in
  const registrationId: string = verified.registrationId;
  void [key, registrationId];
}
