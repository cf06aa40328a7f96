// `numbers-api proxy` / `npm run conformance -- --proxy`: the validating proxy in front of a live
// base URL (validating-proxy.ts). A frontend team points its app at the proxy; every request and
// answer is checked against the contract as it flows (each verdict is logged and returned in the
// `sl-violations` response header; with --errors, an exchange that breaks the contract is
// answered with an error). The deployment is reached at the configured origin only, no redirect
// followed, answers capped. It runs until Ctrl-C or SIGTERM.
import { defaultDescriptionPath, loadDescription } from './description.js';
import { startValidatingProxy } from './validating-proxy.js';

export interface ProxyOptions {
  upstream: string;
  port: number;
  host: string;
  errors: boolean;
  descriptionPath?: string;
}

/** Runs the proxy until Ctrl-C or SIGTERM; resolves with the exit code (0 on a stop asked for). */
export async function runProxy(options: ProxyOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<number> {
  const descriptionPath = options.descriptionPath ?? defaultDescriptionPath();
  const proxy = await startValidatingProxy({ upstream: options.upstream, host: options.host, port: options.port, errors: options.errors, document: loadDescription(descriptionPath), log });
  log(`Validating proxy: ${proxy.url} -> ${options.upstream} (contract: ${descriptionPath})`);
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void proxy.close().then(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
