// A vitest reporter that collects the scenario outcomes from the tests' meta into the report and
// writes the console summary by operation and the coverage table. The CLI writes the report files
// (files.ts: JSON and JUnit), on every exit.
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { ScenarioOutcome } from '../findings.js';
import { buildReport, formatCoverage, formatSummary, type ConformanceReport, type ReportInput } from './report.js';

/** What the report is built from (ReportInput, but the outcomes, which the tests' meta gives), and how it is written. */
export interface ConformanceReporterOptions extends Omit<ReportInput, 'outcomes'> {
  verbose?: boolean;
  /** Where the reports go, for the findings' rerun lines. */
  reportDir?: string;
  /** Receives a progress mark per finished scenario. */
  progress?: (mark: string) => void;
  write?: (text: string) => void;
}

export class ConformanceReporter implements Reporter {
  report?: ConformanceReport;
  /** Tests that failed without a conformance outcome (a crash in the suite itself). */
  crashed = 0;

  constructor(private readonly options: ConformanceReporterOptions) {}

  /** A one-character progress mark per scenario, so a long run against a live deployment shows life. */
  onTestCaseResult(test: TestCase): void {
    if (!this.options.progress) return;
    const outcome = test.meta().conformance;
    const mark = outcome ? { pass: '.', advisory: 'a', skip: 's', 'not-applicable': '-', fail: 'F' }[outcome.verdict] : test.result().state === 'failed' ? 'E' : 's';
    this.options.progress(mark);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const outcomes: ScenarioOutcome[] = [];
    for (const module of testModules) {
      if (module.state() === 'failed' && !module.children.size) this.crashed++;
      for (const test of module.children.allTests()) {
        const outcome = test.meta().conformance;
        if (outcome) outcomes.push(outcome);
        else if (test.result().state === 'failed') this.crashed++;
      }
    }
    const { document, notSent, baseUrl, level, to, maxSends, mock, secondKey, emptyWallet, freeAccount } = this.options;
    this.report = buildReport({ document, outcomes, notSent, baseUrl, level, to, maxSends, mock, secondKey, emptyWallet, freeAccount });
    const write = this.options.write ?? ((text: string) => process.stdout.write(`${text}\n`));
    write(`\n${formatSummary(this.report, { verbose: this.options.verbose, reportDir: this.options.reportDir })}\n\n${formatCoverage(this.report)}\n`);
  }
}
