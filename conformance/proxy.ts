// `numbers-api proxy` (`npm run conformance -- --proxy` is its old name, kept for a release): the
// validating proxy in front of a live base URL (validating-proxy.ts). A frontend team points its
// app at the proxy; every request and answer is checked against the contract as it flows (each
// verdict is logged and returned in the `sl-violations` response header; with --errors, an
// exchange that breaks the contract is answered with an error). The deployment is reached at the
// configured origin only, no redirect followed, answers capped. It runs until Ctrl-C or SIGTERM.
import { runCommand, type CommandSpec } from '../src/cli/command.js';
import { batchedLines, type CliIo } from '../src/cli/io.js';
import { SHARED } from '../src/cli/options.js';
import { untilSignal } from '../src/cli/run-until-signal.js';
import { port } from '../src/cli/validators.js';
import { OPTIONS as SUITE, parseBaseUrl } from './config.js';
import { defaultDescriptionPath, loadDescription } from './description.js';
import { startValidatingProxy } from './validating-proxy.js';

export const PROXY = {
  name: 'numbers-api proxy',
  usage: '--base-url <url> [--port <n>] [--host <address>] [--errors]',
  about: `A validating proxy in front of a deployment: each request and answer is checked against the
contract as it passes (the verdicts logged, and in an sl-violations header).`,
  options: {
    'base-url': SUITE['base-url'],
    port: { ...SHARED.port, help: 'the port to listen on (default 4010)' },
    host: { ...SHARED.host, help: 'the address to listen on (default 127.0.0.1)' },
    errors: { type: 'boolean', help: 'answer a contract violation with an error instead of logging it' },
    description: SUITE.description,
  },
} as const satisfies CommandSpec;

/** Runs the proxy until Ctrl-C or SIGTERM; resolves with the exit code (0 on a stop asked for). */
export function runProxyCli(argv: string[], io: CliIo): Promise<number> {
  return runCommand(PROXY, argv, io, async ({ values, from }) => {
    const upstream = parseBaseUrl(values['base-url'], from('base-url'));
    const descriptionPath = values.description ?? defaultDescriptionPath();
    // A line a request, written a turn of the event loop at a time (src/cli/io.ts).
    const { line: log, flush } = batchedLines(io.stderr);
    const listen = { host: values.host ?? '127.0.0.1', port: values.port === undefined ? 4010 : port(values.port, from('port')) };
    const proxy = await startValidatingProxy({ upstream, ...listen, errors: values.errors === true, document: loadDescription(descriptionPath), log });
    const stop = untilSignal();
    log(`Validating proxy: ${proxy.url} -> ${upstream} (contract: ${descriptionPath})`);
    await stop.stopped;
    await proxy.close();
    flush();
    stop.release();
    return 0;
  });
}
