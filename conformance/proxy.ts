// `numbers-api proxy` / `npm run conformance -- --proxy`: Prism as a validating proxy in front of
// a live base URL. A frontend team points its app at the proxy; every request and response is
// checked against the contract as it flows (violations are logged and returned in the
// `sl-violations` response header; with --errors, a violating exchange is answered with an error).
// Prism reaches the deployment only through a guard of ours (proxy-guard.ts): the configured origin
// only, no redirect followed, answers capped, a JSON answer that does not parse passed on as text.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defaultDescriptionPath } from './description.js';
import { startProxyGuard } from './proxy-guard.js';

export interface ProxyOptions {
  upstream: string;
  port: number;
  host: string;
  errors: boolean;
  descriptionPath?: string;
}

/** The Prism CLI entry of the installed @stoplight/prism-cli. */
export function prismEntry(): string {
  const require = createRequire(import.meta.url);
  const pkgFile = require.resolve('@stoplight/prism-cli/package.json');
  const pkg = require(pkgFile) as { bin: { prism: string } };
  return path.join(path.dirname(pkgFile), pkg.bin.prism);
}

/** The bundled YAML beside generated/openapi.json (Prism reads either). */
export function proxyDescription(descriptionPath = defaultDescriptionPath()): string {
  const yaml = descriptionPath.replace(/\.json$/, '.yaml');
  return existsSync(yaml) ? yaml : descriptionPath;
}

export function proxyArgs(options: ProxyOptions): string[] {
  const args = [prismEntry(), 'proxy', proxyDescription(options.descriptionPath), options.upstream, '--host', options.host, '--port', String(options.port)];
  if (options.errors) args.push('--errors');
  return args;
}

/** Runs Prism until it exits (Ctrl-C stops it); resolves with its exit code. */
export async function runProxy(options: ProxyOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<number> {
  log(`Validating proxy: http://${options.host}:${options.port} -> ${options.upstream} (contract: ${proxyDescription(options.descriptionPath)})`);
  const guard = await startProxyGuard(new URL(options.upstream));
  const child = spawn(process.execPath, proxyArgs({ ...options, upstream: guard.url }), { stdio: 'inherit' });
  const stop = () => child.kill('SIGINT');
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void guard.close().then(() => resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
    });
  });
}
