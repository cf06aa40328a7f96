// The Prism process behind the mock's front. Forked by start-mock.ts with an IPC channel; it runs
// Prism 5.14.2's own HTTP server (the one `prism mock` starts) on a loopback port the OS picks, and
// reports that port back. It exits when its parent says so, when the IPC channel closes (the
// parent died), or on SIGTERM/SIGINT, so a Prism process never outlives its mock.
//
// Why Prism's programmatic API rather than the `prism mock` command: the command always pipes its
// log through pino and signale (costly per request even when silenced), parses the description
// twice, and cannot listen on a port it chooses itself. The configuration below is the command's
// own (static examples, request validation, security checks, CORS on, `--errors` off) except that
// Prism's check of its own answers is off unless asked for (`validateResponse`, see start-mock.ts).
import { requireFromPrism, skipUnusedPrismModules } from './prism-modules.js';

export interface PrismChildOptions {
  /** Absolute path of the description Prism serves. */
  document: string;
  /** Prism's log level (pino levels); `silent` unless asked for. */
  logLevel: string;
  /** Validate mocked responses against their schemas (the `prism mock` command always does). */
  validateResponse: boolean;
}

export type PrismChildMessage =
  | {
      type: 'listening';
      port: number;
      operations: number;
      prismVersion: string;
      /** A path of the served description to send the first request to (its first GET with no path parameter), or `/`. */
      warmUpPath: string;
    }
  | { type: 'error'; message: string };

// Ctrl-C reaches the whole process group, this process included, possibly while it is still
// loading Prism: the handler is installed before anything else, so SIGINT never kills it by
// default action. With a parent (IPC), the parent stops this process itself after its own
// clean-up; run alone, Ctrl-C stops it directly.
process.on('SIGINT', () => {
  if (!process.connected) process.exit(0);
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));

function report(message: PrismChildMessage): void {
  if (process.send) process.send(message);
  else process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function main(): Promise<void> {
  const options = JSON.parse(process.env.NUMBERS_API_PRISM_OPTIONS ?? '{}') as PrismChildOptions;
  if (!options.document) throw new Error('NUMBERS_API_PRISM_OPTIONS.document is required');

  skipUnusedPrismModules();
  const { getHttpOperationsFromSpec } = requireFromPrism('@stoplight/prism-http');
  const { createServer } = requireFromPrism('@stoplight/prism-http-server');
  const { createLogger } = requireFromPrism('@stoplight/prism-core');
  const prismVersion: string = requireFromPrism('@stoplight/prism-cli/package.json').version;

  const operations = await getHttpOperationsFromSpec(options.document);
  if (operations.length === 0) throw new Error(`No operations found in ${options.document}`);

  // Logs go to stderr (the parent passes it through), never to the parent's request log.
  const logger = createLogger('PRISM', { level: options.logLevel || 'silent' }, process.stderr);
  const server = createServer(operations, {
    cors: true,
    components: { logger },
    config: {
      checkSecurity: true,
      validateRequest: true,
      validateResponse: options.validateResponse === true,
      errors: false,
      isProxy: false,
      upstreamProxy: undefined,
      mock: { dynamic: false },
    },
  });
  const port = Number(new URL(await server.listen(0, '127.0.0.1')).port);

  // Closing waits for keep-alive sockets; exiting does not need to.
  process.on('message', (message) => {
    if (message === 'stop') process.exit(0);
  });

  const warmUp = operations.find((operation: { method: string; path: string }) => operation.method === 'get' && !operation.path.includes('{'));
  report({ type: 'listening', port, operations: operations.length, prismVersion, warmUpPath: warmUp?.path ?? '/' });
}

main().catch((error: unknown) => {
  report({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
