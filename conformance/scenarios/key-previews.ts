// Parts 2 and 5.3: the account shows each API key only as a preview, never the full value. The
// key the suite holds must not appear anywhere in the account. Any other full-length key, there or
// in any other answer, fails the generic check no-full-key-in-answers (checks/key-exposure.ts).
import { findOperation, type Operation } from '../description.js';
import { allStrings } from '../records.js';
import type { ScenarioDraft } from '../scenario.js';

const OPERATION = 'getAccount';

export function keyPreviewScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, OPERATION);
  if (!op) return [];
  return [
    {
      operationId: OPERATION,
      check: 'key-previews-not-full-keys',
      part: '2, 5.3',
      level: 'contract',
      title: 'API keys appear only as previews, never as the full key (parts 2, 5.3)',
      async run(ctx) {
        const ex = await ctx.send(op, {});
        if (ex.status !== 200) return ctx.fail(`Expected 200, got ${ex.status}.`, ex);
        const key = ctx.config.apiKey;
        // Judged on the raw text too, so a key in an unexpected place or encoding is caught.
        const leaked = ex.bodyText.includes(key) || allStrings(ex.body).some((s) => s.includes(key));
        ctx.expect(!leaked, leaked ? 'The account answer contains the full API key used for this run (shown here redacted).' : 'The API key used for this run does not appear in the account.', ex);
      },
    },
  ];
}
