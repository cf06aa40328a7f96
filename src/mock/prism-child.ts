// The Prism process behind the mock's front. Forked by start-mock.ts with an IPC channel; it runs
// Prism 5.14.2's own HTTP server (the one `prism mock` starts) on a loopback port the OS picks, and
// reports that port back. It exits when its parent says so, when the IPC channel closes (the
// parent died), or on SIGTERM/SIGINT, so a Prism process never outlives its mock.
//
// Why Prism's programmatic API rather than the `prism mock` command: the command always pipes its
// log through pino and signale (costly per request even when silenced), parses the description
// twice, and cannot listen on a port it chooses itself. The configuration below is the command's
// own (static examples, request and response validation, security checks, CORS on, `--errors`
// off); only `validateResponse` can be switched off, for measuring.
import Module, { createRequire } from 'node:module';

export interface PrismChildOptions {
  /** Absolute path of the description Prism serves. */
  document: string;
  /** Prism's log level (pino levels); `silent` unless asked for. */
  logLevel: string;
  /** Validate mocked responses against their schemas (Prism's default: on). */
  validateResponse: boolean;
}

export type PrismChildMessage =
  | { type: 'listening'; port: number; operations: number; prismVersion: string }
  | { type: 'error'; message: string };

// Prism's packages are resolved from @stoplight/prism-cli's own location, so the mock uses exactly
// the modules of the pinned CLI whatever npm hoisted.
const requireFromPrism = createRequire(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json'));

/**
 * Start-up: Prism requires `@faker-js/faker`, whose main entry builds all of faker's 60-odd
 * locales when loaded (most of Prism's load time, about 1 to 3 s here). Prism only uses faker for
 * dynamic examples (`Prefer: dynamic=true`), in English, faker's default locale. So the main entry
 * is answered with the English-only build, which is the same `Faker` in the shape Prism reads
 * (`.default`). Nothing changes for static examples; dynamic ones come from the same English
 * data. If the layout ever differs, Prism loads faker as usual.
 */
function preloadEnglishFaker(): void {
  try {
    const requireFromPrismHttp = createRequire(requireFromPrism.resolve('@stoplight/prism-http'));
    const entry = requireFromPrismHttp.resolve('@faker-js/faker');
    const english = requireFromPrismHttp('@faker-js/faker/locale/en') as object;
    const cached = new Module(entry);
    cached.filename = entry;
    cached.loaded = true;
    cached.exports = { __esModule: true, default: english, faker: english };
    requireFromPrismHttp.cache[entry] = cached;
  } catch {
    // leave faker to Prism
  }
}

function report(message: PrismChildMessage): void {
  if (process.send) process.send(message);
  else process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function main(): Promise<void> {
  const options = JSON.parse(process.env.NUMBERS_API_PRISM_OPTIONS ?? '{}') as PrismChildOptions;
  if (!options.document) throw new Error('NUMBERS_API_PRISM_OPTIONS.document is required');

  preloadEnglishFaker();
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
      validateResponse: options.validateResponse !== false,
      errors: false,
      isProxy: false,
      upstreamProxy: undefined,
      mock: { dynamic: false },
    },
  });
  const address: string = await server.listen(0, '127.0.0.1');
  const port = Number(new URL(address).port);

  const stop = (): void => {
    // Closing waits for keep-alive sockets; exiting does not need to.
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  // Ctrl-C reaches the whole process group; the parent then stops this process itself, after its
  // own clean-up. Run alone (no IPC channel), Ctrl-C stops it directly.
  process.on('SIGINT', () => {
    if (!process.connected) stop();
  });
  process.on('message', (message) => {
    if (message === 'stop') stop();
  });

  report({ type: 'listening', port, operations: operations.length, prismVersion });
}

main().catch((error: unknown) => {
  report({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
