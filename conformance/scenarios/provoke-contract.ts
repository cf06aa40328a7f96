// Documented answers the contract level provokes on any deployment, each with a request that has
// nothing to act on even where the deployment wrongly accepts it (the contract level's promise):
// - a sign-up step on a verification or registration that cannot exist (401, 409; part 4.1), with
//   a fictional holder number that reaches nobody;
// - an injection to a number that is not the account's (404; the test helper is inferred);
// - the subscription operations in the state the account is in, read first: without an active
//   subscription, cancel, resume, change and preview have nothing to act on and answer 409
//   (part 4.4); with one, only the preview is sent (200: it changes and charges nothing).
import { findOperation, requestExample, type Json, type Operation } from '../description.js';
import { fictionalNumber } from '../mock-accounts.js';
import { nonexistentId } from '../policy.js';
import type { ScenarioDraft } from '../scenario.js';

const A_CODE = '000000';

export function contractProvocationScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = (id: string) => findOperation(operations, id);
  const scenarios: ScenarioDraft[] = [];
  const base = { level: 'contract' as const };

  const verifyEmail = op('verifyEmail');
  if (verifyEmail) {
    scenarios.push({
      ...base,
      id: 'verifyEmail/unknown-verification-401',
      operationId: 'verifyEmail',
      check: 'sign-up-code-refused',
      part: '4.1',
      title: 'a code for a verification that cannot exist answers 401 (part 4.1: wrong, expired or used)',
      provokes: ['verifyEmail 401'],
      async run(ctx) {
        const example = requestExample(ctx.env.document, verifyEmail);
        const ex = await ctx.send(verifyEmail, { auth: 'none', body: { verificationId: nonexistentId(example?.verificationId), code: A_CODE } });
        ctx.expectStatus(ex, 401, 'A code for a verification that cannot exist');
      },
    });
  }

  for (const [id, body] of [
    ['registerNumber', (example: Json) => ({ registrationId: nonexistentId(example?.registrationId), phoneNumber: fictionalNumber() })],
    ['verifyPhoneNumber', (example: Json) => ({ registrationId: nonexistentId(example?.registrationId), code: A_CODE })],
  ] as const) {
    const operation = op(id);
    if (!operation) continue;
    scenarios.push({
      ...base,
      id: `${id}/unknown-registration-409`,
      operationId: id,
      check: 'sign-up-registration-unknown',
      part: '4.1',
      title: 'a registration that cannot exist answers 409 (part 4.1: registration unknown)',
      provokes: [`${id} 409`],
      async run(ctx) {
        // The registration cannot exist, and the number is fictional: no SMS can be sent.
        const ex = await ctx.send(operation, { auth: 'none', body: body(requestExample(ctx.env.document, operation)) });
        ctx.expectStatus(ex, 409, 'A registration that cannot exist');
      },
    });
  }

  const inject = op('injectTestInboundMessage');
  const listNumbers = op('listNumbers');
  if (inject && listNumbers) {
    scenarios.push({
      ...base,
      id: 'injectTestInboundMessage/not-your-number-404',
      operationId: 'injectTestInboundMessage',
      check: 'test-helper-not-your-number',
      part: '4.5, 7',
      title: 'an injection to a number that is not the account\'s answers 404 (part 7: not on this account)',
      provokes: ['injectTestInboundMessage 404'],
      async run(ctx) {
        const own = new Set((await ctx.env.fixtures.numbers()).map((n) => n.number));
        let to = fictionalNumber();
        while (own.has(to)) to = fictionalNumber();
        // A deployment without the helper (its path is inferred) answers 404 too: nothing is injected either way.
        const ex = await ctx.send(inject, { body: { ...(requestExample(ctx.env.document, inject) ?? {}), to, from: fictionalNumber() } });
        ctx.expectStatus(ex, 404, 'An injection to a number the account does not hold');
      },
    });
  }

  const getBilling = op('getBilling');
  const stateOps = ['cancelSubscription', 'resumeSubscription', 'changeSubscriptionInterval', 'previewSubscriptionChange'].map(op);
  if (getBilling && stateOps.every(Boolean)) {
    const [cancel, resume, change, preview] = stateOps as [Operation, Operation, Operation, Operation];
    scenarios.push({
      ...base,
      operationId: 'previewSubscriptionChange',
      check: 'subscription-state-answers',
      part: '3, 4.4',
      title: 'the subscription operations answer the state the account is in, read first: 409 without an active subscription; a preview with one (200, nothing changed) (parts 3, 4.4)',
      provokes: ['cancelSubscription 409', 'resumeSubscription 409', 'changeSubscriptionInterval 409', 'previewSubscriptionChange 409', 'previewSubscriptionChange 200'],
      rules: ['subscription-state-answers', 'subscription-preview-changes-nothing'],
      async run(ctx) {
        const before = await ctx.send(getBilling, {});
        const status = before.body as Json | undefined;
        if (before.status !== 200 || !status || typeof status !== 'object' || !('subscription' in status)) {
          return ctx.skip(`The billing status (${before.status}) shows no \`subscription\` (its field name is inferred), so whether one is active is unknown; nothing is sent.`);
        }
        const subscription = status.subscription;
        if (subscription === null) {
          const interval = ctx.env.document.components?.schemas?.SubscriptionInterval?.examples?.[0];
          if (typeof interval !== 'string') return ctx.skip('The description gives no example of a subscription interval.');
          ctx.expectStatus(await ctx.send(cancel, {}), 409, 'Cancel without an active subscription (read first: none)');
          ctx.expectStatus(await ctx.send(resume, {}), 409, 'Resume without an active subscription');
          ctx.expectStatus(await ctx.send(change, { body: { interval } }), 409, 'Change without an active subscription');
          ctx.expectStatus(await ctx.send(preview, { body: {} }), 409, 'A preview without an active subscription');
          ctx.notProvokedHere('previewSubscriptionChange 200', 'the account has no active subscription (GET /api/v1/billing), so a preview answers 409');
          return;
        }
        for (const target of ['cancelSubscription 409', 'resumeSubscription 409', 'changeSubscriptionInterval 409', 'previewSubscriptionChange 409']) {
          ctx.notProvokedHere(target, 'the account has an active subscription (GET /api/v1/billing), so only the preview, which changes nothing, is sent');
        }
        ctx.judging('subscription-preview-changes-nothing');
        const previewed = await ctx.send(preview, { body: {} });
        if (!ctx.expectStatus(previewed, 200, 'A preview of no change with an active subscription')) return;
        // Part 4.4: nothing is changed or charged.
        const after = await ctx.send(getBilling, {});
        ctx.same('The subscription after a preview', { ex: before, at: 'subscription', value: subscription }, { ex: after, at: 'subscription', value: (after.body as Json | undefined)?.subscription }, '4.4');
      },
    });
  }
  return scenarios;
}
