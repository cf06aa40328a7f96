// Running the two linters of the package on a file, with the package's own configuration
// (redocly.yaml, .spectral.yaml), and turning their findings into readable lines.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { bundleAndLoadRuleset } from '@stoplight/spectral-ruleset-bundler/with-loader';
import { repoRoot } from './contract.js';

const run = promisify(execFile);

export interface Finding {
  tool: 'redocly' | 'spectral';
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  /** JSON pointer or dotted path of the finding in the linted file. */
  where: string;
  line?: number;
}

export function formatFinding(f: Finding): string {
  return `${f.tool} ${f.severity} ${f.rule} at ${f.where}${f.line ? ` (line ${f.line})` : ''}: ${f.message}`;
}

export interface RedoclyLintResult {
  findings: Finding[];
  /** Problems hidden by a .redocly.lint-ignore.yaml (the package keeps none). */
  ignored: number;
}

/** `redocly lint <file>` with redocly.yaml, or another configuration (Redocly CLI 2, the installed binary). */
export async function runRedoclyLint(file: string, config = path.join(repoRoot, 'redocly.yaml')): Promise<RedoclyLintResult> {
  const cli = path.join(repoRoot, 'node_modules/@redocly/cli/bin/cli.js');
  const args = [cli, 'lint', file, '--format=json', '--max-problems=10000', `--config=${config}`];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    // Exit code 1 means "problems found"; the JSON report is still on stdout.
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout?.trim().startsWith('{')) throw new Error(`redocly lint failed to run:\n${failed.stderr ?? error}`);
    stdout = failed.stdout;
  }
  const report = JSON.parse(stdout) as {
    totals: { ignored: number };
    problems: Array<{
      ruleId: string;
      severity: 'error' | 'warn';
      message: string;
      location: Array<{ pointer?: string; start?: { line: number } }>;
    }>;
  };
  return {
    ignored: report.totals.ignored,
    findings: report.problems.map((p) => ({
      tool: 'redocly',
      rule: p.ruleId,
      severity: p.severity === 'warn' ? 'warning' : 'error',
      message: p.message,
      where: p.location[0]?.pointer ?? '?',
      line: p.location[0]?.start?.line,
    })),
  };
}

const spectralPromises = new Map<string, Promise<Spectral>>();

/** A Spectral instance with a ruleset of the package (.spectral.yaml by default) loaded the way the CLI loads it (functionsDir included). */
export function houseSpectral(rulesetFile = '.spectral.yaml'): Promise<Spectral> {
  const cached = spectralPromises.get(rulesetFile);
  if (cached) return cached;
  const loading = (async () => {
    const ruleset = await bundleAndLoadRuleset(path.join(repoRoot, rulesetFile), {
      fs,
      // The ruleset is local (spectral:oas is built in); nothing is fetched.
      fetch: (async (url: string) => {
        throw new Error(`Spectral tried to fetch ${url}; rulesets must be local`);
      }) as unknown as typeof globalThis.fetch,
    });
    const spectral = new Spectral();
    spectral.setRuleset(ruleset);
    return spectral;
  })();
  spectralPromises.set(rulesetFile, loading);
  return loading;
}

const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

/** Spectral with a house ruleset (.spectral.yaml by default) on a YAML or JSON file. */
export async function runSpectral(file: string, rulesetFile = '.spectral.yaml'): Promise<Finding[]> {
  const spectral = await houseSpectral(rulesetFile);
  const text = fs.readFileSync(file, 'utf8');
  // JSON is YAML, and the YAML parser gives line numbers for both.
  const results: ISpectralDiagnostic[] = await spectral.run(new Document(text, Parsers.Yaml, file));
  return results.map((r) => ({
    tool: 'spectral',
    rule: String(r.code),
    severity: SPECTRAL_SEVERITY[r.severity] ?? 'error',
    message: r.message,
    where: r.path.join('.'),
    line: r.range.start.line + 1,
  }));
}
