// The conformance suite's rule table (conformance/rules.ts) as Markdown: the generated region
// `conformance-rules` of conformance/README.md ("What it checks, rule by rule, and what it cannot see").
import { NOT_CHECKED_REASONS, RULES } from '../../conformance/rules.ts';

const code = (text) => `\`${text}\``;

/** How a rule stands on a deployment, in a cell. */
function onDeployment(rule) {
  if (rule.checked) {
    const where = rule.checked.everyAnswer ? 'checked on every answer' : `checked at ${code(rule.checked.level)}`;
    const without = rule.checked.fixture ? `; without it not checkable (${code('needs-fixture-account')})` : '';
    return `${where}${rule.checked.when ? `, ${rule.checked.when}` : ''}${rule.checked.advisory ? ` (advisory: ${rule.checked.advisory})` : ''}${without}`;
  }
  const { reason, why, unlock } = rule.notChecked;
  return `not checkable (${code(reason)}): ${why}${unlock ? `; ${unlock.startsWith('--') ? `unlocked by ${code(unlock)}` : unlock}` : ''}`;
}

function scenarios(rule) {
  const by = rule.checked?.everyAnswer ? [`${code(rule.checked.everyAnswer)} (every request)`] : (rule.checked?.by ?? []).map(code);
  const mock = (rule.onMock ?? []).map((id) => `on the mock: ${code(id)}`);
  return [...by, ...mock].join('<br>');
}

/** The counts the table opens with: checked, on the mock only, not checkable by reason. */
export function conformanceRulesSummary(rules = RULES) {
  const checked = rules.filter((r) => r.checked);
  const at = (level) => checked.filter((r) => r.checked.level === level).length;
  const unchecked = rules.filter((r) => !r.checked);
  const reasons = Object.keys(NOT_CHECKED_REASONS)
    .map((key) => [key, unchecked.filter((r) => r.notChecked.reason === key).length])
    .filter(([, n]) => n > 0)
    .map(([key, n]) => `${n} ${code(key)}`);
  const onMock = unchecked.filter((r) => r.onMock?.length).length;
  const legend = Object.entries(NOT_CHECKED_REASONS).map(([key, words]) => `- ${code(key)}: ${words}`);
  const fixtures = [...new Set(checked.map((r) => r.checked.fixture).filter(Boolean))].map((option) => `${checked.filter((r) => r.checked.fixture === option).length} with ${code(option)}`);
  const withFixtures = fixtures.length ? `; ${fixtures.join(' and ')}: those need a fixture account the team sets aside, ${code('needs-fixture-account')} without it` : '';
  return [`${rules.length} rules: ${checked.length} checked on any deployment (${at('contract')} at \`contract\`, ${at('writes')} only at \`writes\`${withFixtures}); ${unchecked.length} not checkable on a deployment (${reasons.join(', ')}), ${onMock} of them checked on the package's mock. Why a rule is not checkable:`, '', ...legend].join('\n');
}

/** The table's head and rows (Markdown cells), for the guides' one table writer. */
export function conformanceRulesTable(rules = RULES) {
  return { head: ['rule', 'part', 'what', 'on a deployment', 'scenarios'], rows: rules.map((r) => [code(r.id), r.part, r.rule, onDeployment(r), scenarios(r)]) };
}
