// The text report of `npm run diff`.

import type { Change, Classification } from './changes.js';
import type { DiffResult } from './index.js';
import type { LoadedRelease } from './load.js';

const HEADINGS: Record<Classification, string> = {
  breaking: 'BREAKING',
  'non-breaking': 'NON-BREAKING',
  documentation: 'DOCUMENTATION-ONLY',
};

const MAX_AFFECTS = 6;

function formatChange(c: Change): string {
  const lines = [`  - ${c.message} [${c.code}]`];
  if (c.inferred) lines.push(`      ${c.note}${c.wouldBe !== c.classification ? ` (would otherwise be ${c.wouldBe})` : ''}`);
  lines.push(`      at ${c.document}#${c.pointer}${c.in === 'previous' ? ' (previous release)' : ''}`);
  if (c.affects.length) {
    const shown = c.affects.slice(0, MAX_AFFECTS);
    const more = c.affects.length - shown.length;
    lines.push(`      affects: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`);
  }
  return lines.join('\n');
}

export function formatReport(result: DiffResult, previous: LoadedRelease, current: LoadedRelease): string {
  const out = [`Contract diff: ${previous.source} (${previous.version ?? '?'}) -> ${current.source} (${current.version ?? '?'})`];
  for (const s of result.skipped) out.push(`Not compared: ${s}`);
  for (const classification of ['breaking', 'non-breaking', 'documentation'] as const) {
    const list = result.changes.filter((c) => c.classification === classification);
    if (!list.length) continue;
    out.push('', `${HEADINGS[classification]} (${list.length})`, ...list.map(formatChange));
  }
  if (result.recordings) {
    const { names, broken, untouched } = result.recordings;
    out.push('', `Recordings (${names.length}): ${broken.length === 0 ? 'no change breaks any of them' : broken.map((name) => `breaks recording ${name}`).join('; ')}`);
    if (untouched.length > 0) out.push(`Breaking changes no recording touches (${untouched.length}):`, ...untouched.map((m) => `  - ${m}`));
  }
  const { breaking, nonBreaking, documentation, inferred, requiredBump } = result.summary;
  out.push(
    '',
    `${breaking} breaking, ${nonBreaking} non-breaking, ${documentation} documentation-only` +
      (inferred ? ` (${inferred} in x-inferred parts, never breaking)` : '') +
      `. Smallest release for these changes: ${requiredBump === 'none' ? 'none needed' : requiredBump}.`,
  );
  return out.join('\n');
}
