// The workflows (spec/workflows/ → generated/workflows.arazzo.yaml and .json) checked like the
// rest of the contract: bundled from their split files, linted by Redocly and Spectral's Arazzo
// rules, held to the OpenAPI description step by step (src/contract/workflows.ts: a renamed or
// removed field, operation or parameter fails, shown on broken copies), every value the service
// issues carried by an expression, every step citing its part, every sign-up row of part 3
// walked, and each workflow's `x-conformance` level held to what it sends. Running them is
// test/workflows-respect.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { effectsOf, harmOf } from '../src/contract/effects.js';
import { checkWorkflows, formatWorkflowProblem, resolveStepOperation, type ResolvedOperation } from '../src/contract/workflows.js';
import { BundleError, bundleWorkflows } from '../scripts/bundle.mjs';
import { runDiffCli } from '../scripts/diff/cli.js';
import { diffContracts } from '../scripts/diff/index.js';
import { generatedDir, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';
import { formatFinding, runRedoclyLint, runSpectral, type Finding, type RedoclyLintResult } from './helpers/lint.js';

const arazzoYaml = path.join(generatedDir, 'workflows.arazzo.yaml');
const arazzo = JSON.parse(readFileSync(path.join(generatedDir, 'workflows.arazzo.json'), 'utf8')) as JsonObject;
const mockControl = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;
const sources = (): Record<string, JsonObject> => ({ numbersApi: loadOpenApi(), mockControl: structuredClone(mockControl) });
const workflows = arazzo.workflows as JsonObject[];
const byId = new Map(workflows.map((w) => [String(w.workflowId), w]));
const steps = (workflow: JsonObject): JsonObject[] => workflow.steps as JsonObject[];

describe('the bundle', () => {
  it('the YAML and the JSON hold the same document, Arazzo 1.0.1', () => {
    expect(parse(readFileSync(arazzoYaml, 'utf8'))).toEqual(arazzo);
    expect(arazzo.arazzo).toBe('1.0.1');
  });

  it('its source descriptions are the files beside it: the service and the mock control surface', () => {
    expect(arazzo.sourceDescriptions).toEqual([
      { name: 'numbersApi', url: 'openapi.json', type: 'openapi' },
      { name: 'mockControl', url: 'mock-control.json', type: 'openapi' },
    ]);
  });

  it('versions with the package, as both descriptions do', () => {
    expect(arazzo.info.version).toBe(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
  });

  describe('bundling split files', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'workflows-bundle-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, files: Record<string, string>): string => {
      const at = path.join(dir, name);
      mkdirSync(at);
      for (const [file, text] of Object.entries(files)) writeFileSync(path.join(at, file), text);
      return at;
    };
    const root = 'arazzo: 1.0.1\ninfo: {title: t, version: 1.0.0}\nsourceDescriptions: [{name: a, url: a.json, type: openapi}]\n';

    it('appends each file\'s workflows to the root, in file-name order', () => {
      const at = write('ok', { 'arazzo.yaml': root, 'b.yaml': 'workflows: [{workflowId: second, steps: []}]\n', 'a.yaml': 'workflows: [{workflowId: first, steps: []}]\n' });
      expect(bundleWorkflows(at).workflows.map((w: JsonObject) => w.workflowId)).toEqual(['first', 'second']);
    });

    it('fails on a workflowId used twice, naming both files', () => {
      const at = write('twice', { 'arazzo.yaml': root, 'a.yaml': 'workflows: [{workflowId: same, steps: []}]\n', 'b.yaml': 'workflows: [{workflowId: same, steps: []}]\n' });
      expect(() => bundleWorkflows(at)).toThrow(BundleError);
      expect(() => bundleWorkflows(at)).toThrow(/"same" is used by .*a\.yaml and .*b\.yaml/);
    });

    it('fails on a file that holds more than workflows', () => {
      const at = write('extra', { 'arazzo.yaml': root, 'a.yaml': 'workflows: []\ncomponents: {}\n' });
      expect(() => bundleWorkflows(at)).toThrow(/must hold only a `workflows` list \(found components\)/);
    });
  });
});

describe('lint of generated/workflows.arazzo.yaml', () => {
  let redocly: RedoclyLintResult;
  let spectral: Finding[];
  beforeAll(async () => {
    [redocly, spectral] = await Promise.all([
      runRedoclyLint(arazzoYaml, path.join(repoRoot, 'redocly.workflows.yaml')),
      runSpectral(arazzoYaml, '.spectral.workflows.yaml'),
    ]);
  });

  it('redocly lint (redocly.workflows.yaml, recommended-strict): zero errors and zero warnings', () => {
    expect(redocly.findings.map(formatFinding)).toEqual([]);
    expect(redocly.ignored).toBe(0);
  });

  it('spectral lint (.spectral.workflows.yaml: spectral:arazzo and the house rules): zero errors and zero warnings', () => {
    expect(spectral.filter((f) => f.severity === 'error' || f.severity === 'warning').map(formatFinding)).toEqual([]);
  });

  it('the house rules fail a step that cites no part and a workflow without its level', async () => {
    const broken = structuredClone(arazzo);
    broken.workflows[0].steps[0].description = 'Signs up.';
    delete broken.workflows[1]['x-conformance'].level;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'workflows-lint-'));
    try {
      const file = path.join(dir, 'broken.arazzo.json');
      writeFileSync(file, JSON.stringify(broken, null, 2));
      const rules = (await runSpectral(file, '.spectral.workflows.yaml')).filter((f) => f.severity === 'error').map((f) => `${f.rule} at ${f.where}`);
      expect(rules).toContain('house-step-cites-part at workflows.0.steps.0.description');
      expect(rules.some((r) => r.startsWith('house-workflow-conformance at workflows.1'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('every step against the OpenAPI description (src/contract/workflows.ts)', () => {
  it('every operation, parameter, body field and value read is one the descriptions define', () => {
    expect(checkWorkflows(arazzo, sources()).map(formatWorkflowProblem)).toEqual([]);
  });

  // Each broken copy of the contract, and what the check must then say.
  const BROKEN: Array<[string, (api: JsonObject) => void, RegExp]> = [
    [
      'a response field renamed (Message.phoneNumberId → lineId)',
      (api) => {
        const props = api.components.schemas.Message.properties;
        props.lineId = props.phoneNumberId;
        delete props.phoneNumberId;
      },
      /sendListDeliver\/send: reads \$response\.body#\/phoneNumberId, a field the 201 answer of sendMessage does not declare/,
    ],
    [
      'a response field removed (SignupResponse.verificationId)',
      (api) => delete api.components.schemas.SignupResponse.properties.verificationId,
      /beginRegistration\/registrationSignUp: reads \$response\.body#\/verificationId/,
    ],
    [
      'a request field renamed (CreateCallRequest.outboundInstruction → instruction)',
      (api) => {
        const schema = api.components.schemas.CreateCallRequest;
        schema.properties.instruction = schema.properties.outboundInstruction;
        delete schema.properties.outboundInstruction;
        schema.required = ['to', 'fromNumberId', 'instruction'];
      },
      /placeCallWithReplay\/placeCall: sends `outboundInstruction`, which the request schema does not declare/,
    ],
    [
      'a request field made required (SignupRequest.coupon)',
      (api) => api.components.schemas.SignupRequest.required.push('coupon'),
      /leaves out `coupon`, which the request schema requires/,
    ],
    [
      'a value narrowed (listBillingActivity filter without payment-credits)',
      (api) => {
        const filter = api.paths['/api/v1/billing/activity'].get.parameters.find((p: JsonObject) => p.name === 'filter');
        filter.schema.enum = ['all', 'usage'];
      },
      /billingActivityPaging\/paymentsOnly: sends "payment-credits" as filter, which its schema refuses/,
    ],
    [
      'a header parameter removed (Idempotency-Key on createCall)',
      (api) => (api.paths['/api/v1/calls'].post.parameters = []),
      /placeCallWithReplay\/placeCall: sends the header parameter Idempotency-Key, which createCall does not declare/,
    ],
    [
      'a query parameter renamed (starting_after → startingAfter)',
      (api) => {
        const cursor = api.paths['/api/v1/billing/activity'].get.parameters.find((p: JsonObject) => p.name === 'starting_after');
        cursor.name = 'startingAfter';
      },
      /billingActivityPaging\/nextPage: sends the query parameter starting_after, which listBillingActivity does not declare/,
    ],
    [
      'an operation renamed (getUsage → readUsage)',
      (api) => (api.paths['/api/v1/usage'].get.operationId = 'readUsage'),
      /usageAfterTraffic\/usageBefore: operationId "\$sourceDescriptions\.numbersApi\.getUsage": numbersApi has no operation getUsage/,
    ],
    [
      'an operation that stops taking a key (getAccount security: [])',
      (api) => (api.paths['/api/v1/account'].get.security = []),
      /signUpNewAccount\/readAccount: sends Authorization to getAccount, which takes no key/,
    ],
  ];

  it.each(BROKEN)('fails on a broken copy: %s', (_name, breakIt, expected) => {
    const broken = sources();
    breakIt(broken.numbersApi);
    const problems = checkWorkflows(arazzo, broken).map(formatWorkflowProblem);
    expect(problems.join('\n')).toMatch(expected);
  });

  it('fails on a broken workflow: a value read before it is output, an input never declared, a mock operation renamed', () => {
    const broken = structuredClone(arazzo);
    const signUp = broken.workflows.find((w: JsonObject) => w.workflowId === 'signUpNewAccount');
    signUp.steps.find((s: JsonObject) => s.stepId === 'registerNumber').requestBody.payload.registrationId = '$steps.newAccountKey.outputs.apiKey';
    signUp.steps.find((s: JsonObject) => s.stepId === 'registerNumber').requestBody.payload.phoneNumber = '$inputs.holder';
    signUp.steps.find((s: JsonObject) => s.stepId === 'startOver').operationId = '$sourceDescriptions.mockControl.resetMock';
    const problems = checkWorkflows(broken, sources()).map(formatWorkflowProblem).join('\n');
    expect(problems).toMatch(/signUpNewAccount\/registerNumber: reads \$steps\.newAccountKey\.outputs\.apiKey before step newAccountKey has run/);
    expect(problems).toMatch(/signUpNewAccount\/registerNumber: reads \$inputs\.holder, which the workflow's inputs do not declare/);
    expect(problems).toMatch(/signUpNewAccount\/startOver: .*mockControl has no operation resetMock/);
  });
});

describe('the breaking-change diff (npm run diff) reports the workflows a contract change breaks', () => {
  const release = (): JsonObject => ({ openapi: loadOpenApi(), workflows: structuredClone(arazzo), mockControl: structuredClone(mockControl) });

  it('a field a workflow reads, removed: each step that reads it is a breaking `workflow-broken` change', () => {
    const current = release();
    delete current.openapi.components.schemas.Message.properties.phoneNumberId;
    const broken = diffContracts(release(), current).changes.filter((c) => c.code === 'workflow-broken');
    expect(broken.map((c) => c.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^workflow sendListDeliver, step send, reads \$response\.body#\/phoneNumberId/)]),
    );
    expect(broken.every((c) => c.classification === 'breaking' && c.document === 'workflows')).toBe(true);
  });

  it('an operation a workflow uses, removed: each workflow that runs it is named, step by step', () => {
    const current = release();
    delete current.openapi.paths['/api/v1/billing/activity'].get;
    const broken = diffContracts(release(), current).changes.filter((c) => c.code === 'workflow-broken');
    const steps = (arazzo.workflows as JsonObject[]).flatMap((w) => (w.steps as JsonObject[]).filter((s) => s.operationId === '$sourceDescriptions.numbersApi.listBillingActivity').map((s) => `${w.workflowId}/${s.stepId}`));
    expect(steps.length).toBeGreaterThan(0);
    for (const at of steps) {
      const [workflowId, stepId] = at.split('/');
      expect(broken.map((c) => c.message), at).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^workflow ${workflowId}, step ${stepId}, .*listBillingActivity`))]));
    }
    expect(broken.every((c) => c.affects.every((a) => /^workflow \w+$/.test(a)))).toBe(true);
  });

  it('an unchanged contract breaks no workflow; one without workflows is compared as before', () => {
    expect(diffContracts(release(), release()).changes).toEqual([]);
    expect(diffContracts({ openapi: loadOpenApi() }, { openapi: loadOpenApi() }).changes).toEqual([]);
  });

  it('`npm run diff` exits 1 and names the broken step, reading workflows.arazzo.json beside the release', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'workflows-diff-'));
    try {
      const current = release();
      current.openapi.paths['/api/v1/billing/activity'].get.parameters.find((p: JsonObject) => p.name === 'starting_after').name = 'startingAfter';
      writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(current.openapi));
      writeFileSync(path.join(dir, 'workflows.arazzo.json'), JSON.stringify(current.workflows));
      writeFileSync(path.join(dir, 'mock-control.json'), JSON.stringify(current.mockControl));
      let out = '';
      const code = runDiffCli(['generated', '--current', dir], { cwd: repoRoot, out: (t) => (out += t), err: (t) => (out += t) });
      expect(code).toBe(1);
      expect(out).toMatch(/workflow billingActivityPaging, step nextPage, sends the query parameter starting_after, which listBillingActivity does not declare \[workflow-broken\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what the workflows say of themselves', () => {
  /** Every step of the document with its workflow, and its operation when it names one. */
  const allSteps = workflows.flatMap((workflow) =>
    steps(workflow).map((step) => {
      const op = typeof step.operationId === 'string' ? resolveStepOperation(sources(), step.operationId) : undefined;
      return { workflow, step, op: typeof op === 'object' ? op : undefined };
    }),
  );

  it('a step on the mock control surface says "Mock only."; every other step cites its part', () => {
    const wrong = allSteps
      .filter(({ step, op }) => (op?.source === 'mockControl') !== /^Mock only\./.test(String(step.description)) || (op?.source !== 'mockControl' && !/\bParts? \d/.test(String(step.description))))
      .map(({ workflow, step }) => `${workflow.workflowId}/${step.stepId}: ${step.description}`);
    expect(wrong).toEqual([]);
  });

  it('no value the service issues is written as a literal: ids, secrets and keys flow by runtime expressions', () => {
    const ISSUED = /^(sk_live_|ver_|reg_|pn_|msg_|call_|wh_|pm_|in_|cs_|evt_|BRD)/;
    const literals = (value: unknown, at: string): string[] => {
      if (typeof value === 'string') return ISSUED.test(value) ? [`${at}: ${value}`] : [];
      if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => literals(v, `${at}.${k}`));
      return [];
    };
    const found = allSteps.flatMap(({ workflow, step }) => [
      ...literals(step.requestBody?.payload, `${workflow.workflowId}/${step.stepId} body`),
      ...((step.parameters ?? []) as JsonObject[]).flatMap((p) => literals(p.value, `${workflow.workflowId}/${step.stepId} ${p.name}`)),
    ]);
    expect(found).toEqual([]);
  });

  // Transitions of part 3's state tables (x-state-machines) no workflow walks, and why.
  const NOT_WALKED: Record<string, string> = {
    'callLifecycle: In-Progress → In-Progress': 'the cap warning is a spoken prompt or a protocol frame inside the call, not an answer of the API',
    'whatsappReadiness: none → warming_up': 'how a customer connects WhatsApp on a number of their own is not shown (part 3)',
    'tenDlc: with_carrier → rejected': 'the same rejection and free resubmission as in review, a day later (test value tenDlcRejectedByCarrier)',
    'messageDelivery: sent → rejected': 'only a carrier rejects; the mock delivers every message it accepts',
    'messageDelivery: delivered → read': 'only a recipient reads; the mock reports delivery only',
  };

  it('every transition of the state tables of part 3 is walked by a step that quotes it, but those listed with their reason', () => {
    const machines = loadOpenApi()['x-state-machines'] as Record<string, JsonObject>;
    const descriptions = allSteps.map(({ step }) => String(step.description));
    const unwalked: string[] = [];
    for (const [name, machine] of Object.entries(machines)) {
      const transitions = machine.transitions as JsonObject[];
      for (const t of transitions) {
        // `(from → to)`, and `(from → to; condition)` where two transitions share both states.
        const shared = transitions.filter((u) => u.from === t.from && u.to === t.to).length > 1;
        const quote = shared ? `(${t.from} → ${t.to}; ${t.condition})` : `(${t.from} → ${t.to}`;
        const walked = descriptions.some((d) => (shared ? d.includes(quote) : d.includes(`${quote})`) || d.includes(`${quote};`)));
        if (!walked) unwalked.push(`${name}: ${t.from} → ${t.to}`);
      }
    }
    expect(unwalked).toEqual(Object.keys(NOT_WALKED));
  });

  it('a workflow or step marked x-inferred says why; every x- key used is listed in spec/EXTENSIONS.md', () => {
    const extensions = readFileSync(path.join(repoRoot, 'spec/EXTENSIONS.md'), 'utf8');
    const keys = new Set<string>();
    const unexplained: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('x-')) keys.add(key);
        if (key === 'x-inferred' && typeof (node as JsonObject)['x-inferred-reason'] !== 'string') unexplained.push(at);
        walk(value, `${at}/${key}`);
      }
    };
    walk(arazzo, '#');
    expect(unexplained).toEqual([]);
    expect([...keys].filter((key) => !extensions.includes(`\`${key}\``))).toEqual([]);
  });
});

describe('x-conformance: where each workflow may be replayed against a deployment', () => {
  // What the conformance suite's own `writes` level sends (conformance/README.md, Safety); a
  // call only with an `Idempotency-Key`. Reads are GETs, long polls and the free preview.
  const WRITES_LEVEL = new Set(['sendMessage', 'createCall', 'injectTestInboundMessage', 'updateAccount', 'updateNumber']);
  const READS = new Set(['waitForEvent', 'previewSubscriptionChange']);
  const RANK = { contract: 0, writes: 1, never: 2 } as const;
  type Level = keyof typeof RANK;

  /** The lowest level a workflow's own steps need on a deployment, with its writes and why. */
  function needs(workflow: JsonObject): { level: Level; sends: number; why: string[] } {
    let level: Level = 'contract';
    let sends = 0;
    const why: string[] = [];
    const raise = (to: Level, reason: string): void => {
      if (RANK[to] > RANK[level]) level = to;
      if (to === 'never') why.push(reason);
    };
    for (const step of steps(workflow)) {
      if (typeof step.workflowId === 'string') {
        const child = byId.get(step.workflowId)!;
        raise(child['x-conformance'].level as Level, `${step.stepId}: runs ${step.workflowId}`);
        sends += child['x-conformance'].sends ?? 0;
        continue;
      }
      const op = resolveStepOperation(sources(), String(step.operationId)) as ResolvedOperation;
      if (op.source === 'mockControl') continue; // left out on a deployment
      if (op.method === 'get' || READS.has(op.operationId)) continue;
      const keyed = ((step.parameters ?? []) as JsonObject[]).some((p) => p.name === 'Idempotency-Key');
      if (WRITES_LEVEL.has(op.operationId) && (op.operationId !== 'createCall' || keyed)) {
        raise('writes', '');
        sends++;
      } else {
        raise('never', `${step.stepId}: ${op.operationId} (${harmOf(effectsOf(op.operation)) ?? 'not sent by the writes level'})`);
      }
    }
    return { level, sends, why };
  }

  it.each(workflows.map((w) => [String(w.workflowId), w] as const))('%s: its level covers what it sends', (_id, workflow) => {
    const declared = workflow['x-conformance'] as JsonObject;
    const needed = needs(workflow);
    expect(Object.keys(RANK)).toContain(declared.level);
    expect(typeof declared.reason).toBe('string');
    // Never lower than its steps need; `never` may also be a judgement (it needs the mock's state).
    expect(RANK[declared.level as Level], `needs ${needed.level}: ${needed.why.join('; ')}`).toBeGreaterThanOrEqual(RANK[needed.level]);
    if (declared.level === 'writes') expect(declared.sends, 'sends counted against --max-sends').toBe(needed.sends);
    else expect(declared.sends).toBeUndefined();
  });

  it('every operation that deletes or charges (x-effects) makes its workflow `never`: a workflow carries real ids and valid bodies', () => {
    for (const workflow of workflows) {
      const never = steps(workflow).some((step) => {
        const op = typeof step.operationId === 'string' ? resolveStepOperation(sources(), step.operationId) : undefined;
        return typeof op === 'object' && op.source === 'numbersApi' && harmOf(effectsOf(op.operation)) !== undefined;
      });
      if (never) expect(workflow['x-conformance'].level, String(workflow.workflowId)).toBe('never');
    }
  });

  it('some workflows run on a deployment at each level: reads at contract, test traffic at writes', () => {
    const levels = workflows.map((w) => w['x-conformance'].level);
    expect(levels).toContain('contract');
    expect(levels).toContain('writes');
  });
});
