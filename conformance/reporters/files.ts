// The three report files, written on every exit of a run that reached the deployment (exit 2
// included), so that a CI step that keeps conformance-report.json, junit.xml and
// conformance-report.html finds them with the reason a run stopped; a usage error writes none,
// and a rerun writes only its own (conformance-rerun-<id>.json).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatHtml } from './html.js';
import { formatJUnit } from './junit.js';
import type { ConformanceReport } from './report.js';

export function reportFiles(dir: string): { json: string; junit: string; html: string } {
  return { json: path.join(dir, 'conformance-report.json'), junit: path.join(dir, 'junit.xml'), html: path.join(dir, 'conformance-report.html') };
}

/** A rerun's own report, beside the run's and never over it: `conformance-rerun-<finding id>.json`. */
export function rerunReportFile(dir: string, id: string): string {
  return path.join(dir, `conformance-rerun-${id}.json`);
}

export function writeReports(dir: string, report: ConformanceReport): { json: string; junit: string; html: string } {
  const files = reportFiles(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.junit, formatJUnit(report));
  writeFileSync(files.html, formatHtml(report, dir));
  return files;
}
