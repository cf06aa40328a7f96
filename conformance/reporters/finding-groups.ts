// The findings of a run as a person acts on them: one cause is one finding, and identical findings
// are one group with a count. Made from the structured findings (and their verdicts), never from
// their sentences:
// - one cause: an answer whose status is already wrong (an undocumented 5xx or status) is one
//   finding; what other checks then concluded about that same answer (a 401 scenario that got the
//   500, say) is listed under it, not counted again;
// - one group per rule broken at one place: a schema break is split per verdict shown (the union
//   branch judged, not the branches the value never meant), its place with array indices as `*`,
//   so that `createdAt` missing from five records in five requests is one group counted 25 times;
// - each group names the operation, the request (as data, a curl, a --rerun id), the status, the
//   JSON pointer, expected and actual, the schema's name and pointer, and the part.
import { createHash } from 'node:crypto';
import type { Json } from '../description.js';
import type { AnswerExcerpt, Finding, ScenarioOutcome, SentRequest } from '../findings.js';
import type { UnionBranch, Verdict } from '../../src/contract/verdict.js';
import { branchWords, curlOf, nearMisses, shownVerdicts, verdictActual, verdictAt, verdictLine } from './explain.js';

export interface FindingGroup {
  /** Stable across runs (its words without the ids and times a run makes up): `--rerun <id>` looks for it again. */
  id: string;
  check: string;
  part?: string;
  /** Its row in the rule table (conformance/rules.ts, the README's "rule by rule"), when a scenario judged it. */
  ruleId?: string;
  verdict: 'fail' | 'advisory';
  operationId: string;
  status?: number;
  /** What is wrong, in one line. */
  title: string;
  /** JSON pointer of the place in the answer, array indices as `*`, where a schema rule is broken. */
  at?: string;
  /** The rule broken (a JSON Schema keyword, or the check's own), and where it lives in the contract. */
  rule?: { keyword: string; schema?: { pointer: string; component?: string } };
  /** The union branch the value was judged against, in words and as data. */
  branch?: { words: string; union: UnionBranch };
  expected?: unknown;
  actual?: unknown;
  /** Names present beside a missing required field that look like it (`created_at`): renamed? */
  nearMiss?: string[];
  /** How many times it was seen (records times requests), in how many requests, by which scenarios. */
  count: number;
  requests: number;
  scenarios: string[];
  /** The ids of those scenarios (Scenario.id, `workflow <id>`, `replay <recording> <step>`): `--rerun` runs them again. */
  scenarioIds: string[];
  /** The highest level of those scenarios: what `--rerun` asks for to run them all again. */
  level: 'contract' | 'writes';
  /** What other checks concluded about the same answers, which this cause explains. */
  also: string[];
  /** The first request that showed it. */
  example: {
    request?: string;
    sent?: SentRequest;
    curl?: string;
    answer?: AnswerExcerpt;
    /** The request created or changed something (a send of the writes level): `--rerun` does it again only at that level. */
    acting?: boolean;
    /** The level of the scenario that sent it. */
    level: 'contract' | 'writes';
  };
}

/** The checks whose failure is about an answer's status itself: what else is said about that answer follows from it. */
const STATUS_ROOTS = ['not-a-server-error', 'status-code-conformance'];

interface Unit {
  signature: string;
  finding: Finding;
  outcome: ScenarioOutcome;
  verdict?: Verdict;
}

/**
 * A reason without what each run makes up (the ids of records it created, keys of its own, the
 * addresses and holder numbers of accounts it signed up, times), so that the same rule broken the
 * same way has the same id in every run, which `--rerun` relies on.
 */
function normalizedReason(reason: string): string {
  return reason
    .replace(/conformance0nonexistent[a-z0-9]+/gi, '<unknown id>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\b[a-z][a-z0-9]*_(?=[0-9A-Za-z]*\d)[0-9A-Za-z]{8,}\b/g, '<id>')
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?/g, '<time>')
    .replace(/\+\d{8,15}\b/g, '<number>');
}

function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 8);
}

/** The properties a component defines (not near misses, even when they look like the missing one). */
function knownProperties(document: Json, verdict: Verdict): string[] {
  const component = verdict.schema?.component;
  return component ? Object.keys(document.components?.schemas?.[component]?.properties ?? {}) : [];
}

function units(outcome: ScenarioOutcome, finding: Finding): Unit[] {
  const head = `${finding.check}|${finding.verdict}|${finding.operationId}|${finding.status ?? ''}`;
  const verdicts = finding.verdicts ?? [];
  if (verdicts.length) {
    const relevant = finding.verdict === 'fail' ? verdicts.filter((v) => v.severity === 'documented') : verdicts;
    return shownVerdicts(relevant.length ? relevant : verdicts).map((verdict) => ({
      signature: `${head}|${verdict.keyword}|${verdict.schema?.pointer ?? ''}|${verdictAt(verdict)}`,
      finding,
      outcome,
      verdict,
    }));
  }
  return [{ signature: `${head}|${normalizedReason(finding.reason)}`, finding, outcome }];
}

/** The failures and advisories of a run, one cause one finding, identical ones grouped with a count. */
export function groupFindings(document: Json, outcomes: readonly ScenarioOutcome[], baseUrl: string): FindingGroup[] {
  const all: Unit[] = [];
  const consequences = new Map<string, string[]>();
  for (const outcome of outcomes) {
    const shown = outcome.findings.filter((f) => f.verdict === 'fail' || f.verdict === 'advisory');
    // The root of each answer whose status is already wrong.
    const roots = new Map<number, Finding>();
    for (const check of STATUS_ROOTS) {
      for (const f of shown) if (f.check === check && f.verdict === 'fail' && f.exchange !== undefined && !roots.has(f.exchange)) roots.set(f.exchange, f);
    }
    for (const finding of shown) {
      const root = finding.exchange !== undefined ? roots.get(finding.exchange) : undefined;
      if (root && root !== finding) {
        const key = units(outcome, root)[0]!.signature;
        consequences.set(key, [...(consequences.get(key) ?? []), `${finding.check}: ${finding.reason}`]);
        continue;
      }
      all.push(...units(outcome, finding));
    }
  }
  const groups = new Map<string, FindingGroup & { seen: Set<string> }>();
  for (const unit of all) {
    const { finding, outcome, verdict } = unit;
    let group = groups.get(unit.signature);
    if (!group) {
      const known = verdict ? knownProperties(document, verdict) : [];
      const near = verdict ? nearMisses(verdict, known) : [];
      const branch = verdict?.branch && verdict.judged ? { words: branchWords(verdict)!, union: verdict.branch } : undefined;
      const acting = outcome.sends.some((s) => finding.request !== undefined && s.request === finding.request);
      group = {
        id: shortHash(unit.signature),
        check: finding.check,
        ...(finding.part ?? verdict?.part ? { part: finding.part ?? verdict?.part } : {}),
        ...(finding.rule ? { ruleId: finding.rule } : {}),
        verdict: finding.verdict as 'fail' | 'advisory',
        operationId: finding.operationId,
        ...(finding.status !== undefined ? { status: finding.status } : {}),
        title: verdict ? verdictLine(verdict, known) : finding.reason,
        ...(verdict ? { at: verdictAt(verdict), rule: { keyword: verdict.keyword, ...(verdict.schema ? { schema: verdict.schema } : {}) } } : {}),
        ...(branch ? { branch } : {}),
        ...(verdict ? { expected: verdict.expected, actual: verdictActual(verdict) } : finding.expected !== undefined ? { expected: finding.expected, actual: finding.actual } : {}),
        ...(near.length ? { nearMiss: near } : {}),
        count: 0,
        requests: 0,
        scenarios: [],
        scenarioIds: [],
        level: outcome.level,
        also: [],
        example: {
          ...(finding.request ? { request: finding.request } : {}),
          ...(finding.sent ? { sent: finding.sent, curl: curlOf(baseUrl, finding.sent) } : {}),
          ...(finding.answer ? { answer: finding.answer } : {}),
          ...(acting ? { acting: true } : {}),
          level: outcome.level,
        },
        seen: new Set(),
      };
      groups.set(unit.signature, group);
    }
    group.count++;
    const request = finding.exchange !== undefined ? `#${finding.exchange}` : (finding.request ?? outcome.scenarioId);
    if (!group.seen.has(request)) {
      group.seen.add(request);
      group.requests++;
    }
    const where = `${outcome.operationId}: ${outcome.title}`;
    if (!group.scenarios.includes(where)) group.scenarios.push(where);
    if (!group.scenarioIds.includes(outcome.scenarioId)) group.scenarioIds.push(outcome.scenarioId);
    if (outcome.level === 'writes') group.level = 'writes';
    for (const also of consequences.get(unit.signature) ?? []) if (!group.also.includes(normalizedReason(also))) group.also.push(normalizedReason(also));
  }
  return [...groups.values()]
    .map(({ seen: _seen, ...group }) => group)
    .sort((a, b) => (a.verdict === b.verdict ? a.check.localeCompare(b.check) || a.operationId.localeCompare(b.operationId) : a.verdict === 'fail' ? -1 : 1));
}
