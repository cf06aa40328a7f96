// Part 5.1: every operation except the four sign-up operations needs `Authorization: Bearer <key>`
// and answers 401 when the key is missing or invalid ("authentication not ignored"); the sign-up
// operations do not demand a key.
import type { Operation } from '../description.js';
import { describeAuth, type AuthMode } from '../http.js';
import { NEGATIVE_BODIES, NOT_AN_OBJECT, SIGNUP_BODIES } from '../policy.js';
import type { ScenarioDraft } from '../scenario.js';
import { buildPolicyBody, hasRequestBody, nonexistentPathParams, exampleQuery, provokes } from './shared.js';

const NEGATIVE_AUTH: AuthMode[] = ['none', 'malformed', 'unknown-key'];

export function authRequiredScenarios(op: Operation): ScenarioDraft[] {
  if (!op.authenticated) return [];
  return NEGATIVE_AUTH.map((auth) => ({
    id: `${op.operationId}/auth-required/${auth}`,
    operationId: op.operationId,
    check: 'auth-required',
    part: '5.1',
    level: 'contract' as const,
    title: `answers 401 ${describeAuth(auth)} (part 5.1)`,
    provokes: provokes(op, 401),
    async run(ctx) {
      if (auth === 'unknown-key' && ctx.config.anyKeyValid) {
        return ctx.notApplicable(
          ctx.config.anyKeyValidReason ?? '--any-key-valid: this deployment accepts every well-formed key (a mock without accounts), so the unknown-key 401 checks of part 5.1 do not apply to it; they still apply to a live one.',
        );
      }
      const policy = NEGATIVE_BODIES[op.operationId];
      // Path ids that cannot exist and a body that is invalid or anchored to nothing: a deployment
      // that ignored the key would still have nothing to act on.
      const body = hasRequestBody(op) ? (policy ? buildPolicyBody(ctx, op, policy) : NOT_AN_OBJECT) : undefined;
      const ex = await ctx.send(op, { auth, pathParams: nonexistentPathParams(ctx.env.document, op), query: exampleQuery(ctx.env.document, op), body });
      if (ex.status === 401) ctx.pass('401 as required.', ex);
      else if (ex.status >= 200 && ex.status < 300) ctx.fail(`Authentication ignored: ${ex.status} ${describeAuth(auth)}.`, ex);
      else ctx.fail(`Expected 401 ${describeAuth(auth)}, got ${ex.status}${ex.status === 400 ? ' (the body was judged before the key)' : ''}.`, ex);
    },
  }));
}

export function signupNeedsNoKeyScenarios(op: Operation): ScenarioDraft[] {
  if (op.authenticated) return [];
  const policy = SIGNUP_BODIES[op.operationId];
  return [
    {
      operationId: op.operationId,
      check: 'signup-needs-no-key',
      part: '4.1, 5.1',
      level: 'contract',
      title: 'needs no key: an invalid body without a key answers 400, not 401 (parts 4.1, 5.1)',
      provokes: provokes(op, 400),
      async run(ctx) {
        if (!policy) return ctx.skip(`No harmless invalid body is known for ${op.operationId}; it is not sent.`);
        const body = buildPolicyBody(ctx, op, policy);
        const ex = await ctx.send(op, { auth: 'none', body });
        if (ex.status === 400) ctx.pass(`400 without a key (${policy.violation}; ${policy.harmless}).`, ex);
        else if (ex.status === 401) ctx.fail('401 without a key: a sign-up operation must not demand one.', ex);
        else if (ex.status > 401 && ex.status < 500) {
          // No key was demanded, which is the rule; the invalid body was judged after some other state.
          ctx.advisory(`${ex.status} without a key: no key demanded, but 400 was expected for the invalid body (${policy.violation}).`, ex);
        } else ctx.fail(`Expected 400 for an invalid body (${policy.violation}), got ${ex.status}.`, ex);
      },
    },
  ];
}
