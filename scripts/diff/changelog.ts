// `npm run diff -- <previous> --changelog`: a draft CHANGELOG.md section (Keep a Changelog
// headings) from the classified changes, each entry saying what changed, who is affected and what
// to do. A maintainer edits the draft into the release section; documentation-only changes are
// summarised in one line.

import type { Change } from './changes.js';
import type { DiffResult } from './index.js';

type Heading = 'Added' | 'Changed' | 'Deprecated' | 'Removed';

function headingOf(c: Change): Heading {
  if (c.code === 'deprecated' || c.code === 'operation-deprecated') return 'Deprecated';
  if (/-(removed|renamed)$/.test(c.code)) return 'Removed';
  if (/-added$/.test(c.code) && c.classification !== 'breaking') return 'Added';
  return 'Changed';
}

/** The operations and events a change reaches, without the body part (`· response 200 ...`). */
function where(c: Change): string {
  const names = [...new Set(c.affects.map((a) => a.split(' · ')[0]!))].filter((a) => a !== 'document' && a !== 'components');
  if (!names.length) return '';
  const shown = names.slice(0, 4).map((n) => `\`${n}\``);
  return `${shown.join(', ')}${names.length > 4 ? ` and ${names.length - 4} more` : ''}`;
}

function whoIsAffected(c: Change): string {
  const at = where(c);
  const on = at ? ` of ${at}` : '';
  if (c.classification !== 'breaking') return at ? `users of ${at}` : 'no one';
  if (c.code === 'component-removed' || c.code === 'operation-id-changed') return 'code that imports the generated TypeScript types by that name';
  if (c.code === 'workflow-broken') return `clients that follow the ${at.replace(/`workflow (\w+)`/g, '`$1` workflow')}`;
  if (c.directions.includes('request')) return `clients that send requests${on}`;
  if (c.directions.includes('event')) return `consumers of the events${on}`;
  if (c.directions.includes('response')) return `code that reads the responses${on}`;
  return at ? `clients of ${at}` : 'every client';
}

/** What a consumer should do, per rule (breaking changes only; the rest needs nothing). */
const ADVICE: Record<string, string> = {
  'property-removed': 'stop relying on the field; read the replacement named in the reference, if any',
  'property-renamed': 'read (or send) the field under its new name',
  'became-nullable': 'handle `null` for this field',
  'became-optional': 'handle the field being absent',
  'became-required': 'send the field in every request',
  'required-property-added': 'send the new field in every request',
  'required-parameter-added': 'send the new parameter',
  'parameter-became-required': 'always send the parameter',
  'request-body-became-required': 'always send a request body',
  'enum-value-added': 'handle the new value, and keep a fallback for values you do not know',
  'enum-opened': 'accept values beyond the documented ones',
  'enum-value-removed': 'stop sending the removed value',
  'open-enum-value-removed': 'stop sending the value; it is no longer documented',
  'type-changed': 'update code that reads or sends the field to the new type',
  'type-widened': 'handle the wider type',
  'type-narrowed': 'send only values of the narrower type',
  'constraint-tightened': 'make sure the values you send meet the new limit',
  'constraint-loosened': 'handle values beyond the old limit',
  'parameter-removed': 'stop sending the parameter; it no longer has an effect',
  'operation-removed': 'stop calling the operation; use its replacement named in the reference, if any',
  'webhook-removed': 'stop expecting these deliveries',
  'operation-id-changed': 'rename uses of the generated `operations` type',
  'component-removed': 'replace imports of the removed type',
  'success-response-removed': 'handle the operation\'s other success responses',
  'media-type-removed': 'use one of the remaining media types',
  'response-header-removed': 'stop reading the header',
  'security-added': 'send an API key with this operation',
  'security-requirement-removed': 'authenticate with one of the remaining schemes',
  'api-version-changed': 'move to the new API version as its migration notes say',
  'channel-removed': 'stop subscribing to the channel',
  'channel-address-changed': 'connect to the new address',
  'message-removed': 'stop expecting the message',
  'variant-added': 'handle the new shape, and keep a fallback for shapes you do not know',
  'variant-removed': 'send one of the remaining shapes',
  'property-forbidden': 'stop sending the field in this case',
  'workflow-broken': 'follow the workflow as the new release writes it (generated/workflows.arazzo.yaml), adapting the step to the changed operation',
};

function entry(c: Change): string {
  const at = where(c);
  const text = `${c.message.charAt(0).toUpperCase()}${c.message.slice(1)}${at ? ` (${at})` : ''}.`;
  if (c.classification === 'breaking') {
    const advice = ADVICE[c.code] ?? 'review the change in the reference and adapt your code';
    return `- **Breaking.** ${text} **Who is affected:** ${whoIsAffected(c)}. **What to do:** ${advice}.`;
  }
  if (c.inferred) return `- ${text} This detail is inferred (\`x-inferred\`): **what to do:** if you rely on it, check it against the service.`;
  return `- ${text} **What to do:** nothing; ${c.code.endsWith('-added') ? 'use it when you need it' : 'no client change is needed'}.`;
}

export function formatChangelog(result: DiffResult, version = 'Unreleased', date = new Date().toISOString().slice(0, 10)): string {
  const out = [version === 'Unreleased' ? '## [Unreleased]' : `## [${version}] - ${date}`, ''];
  const relevant = result.changes.filter((c) => c.classification !== 'documentation');
  for (const heading of ['Removed', 'Changed', 'Deprecated', 'Added'] as const) {
    const list = relevant.filter((c) => headingOf(c) === heading);
    if (!list.length) continue;
    // Breaking entries first within each heading.
    list.sort((x, y) => Number(y.classification === 'breaking') - Number(x.classification === 'breaking'));
    out.push(`### ${heading}`, '', ...list.map(entry), '');
  }
  const docs = result.summary.documentation;
  if (docs) out.push(`Documentation: ${docs} description, summary or example change(s); no client change is needed.`, '');
  if (!relevant.length && !docs) out.push('No change.', '');
  return out.join('\n');
}
