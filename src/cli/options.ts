// The options of every command, each declared once: its flag, its value, what it does, the
// environment variable read when the flag is not given, and the older names still accepted for a
// release. Prism's `sharedOptions` is the model: a command spreads the shared options it takes
// (SHARED: one name per concept, the same in every command) beside its own.
import { parseArgs } from 'node:util';
import { DEFAULT_SIGNATURE_HEADER, DEFAULT_TIMEOUT_SECONDS } from '../delivery/deliver.js';
import { UsageError } from './usage-error.js';

export interface Option {
  type: 'string' | 'boolean';
  /** The value as help shows it: `<url>`. */
  value?: string;
  short?: string;
  multiple?: boolean;
  /** What it does; help wraps it. */
  help: string;
  /** Read when the flag is not given. */
  env?: string;
  /** Older flag names, accepted for a release; help says they are deprecated. */
  was?: readonly string[];
  /** Older environment variables, read for a release after `env`. */
  wasEnv?: readonly string[];
}

export type Options = Readonly<Record<string, Option>>;

type ValueOf<O extends Option> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;
export type Values<O extends Options> = { -readonly [K in keyof O]?: ValueOf<O[K]> };

/** The mock's address as `numbers-api mock` serves it by default. */
export const MOCK_URL = 'http://127.0.0.1:4010';

/** How events are delivered to a local handler (part 6): events send and listen spread it whole. */
export const DELIVERY = {
  secret: { type: 'string', value: '<secret>', help: `sign the raw body: HMAC-SHA256, hex, in ${DEFAULT_SIGNATURE_HEADER}` },
  'signature-header': { type: 'string', value: '<name>', help: 'send the signature in this header instead (needs --secret)' },
  bearer: { type: 'string', value: '<token>', help: 'send Authorization: Bearer <token> (combinable with --secret)' },
  timeout: { type: 'string', value: '<seconds>', help: `per delivery attempt (default ${DEFAULT_TIMEOUT_SECONDS})` },
} as const satisfies Options;

export const SHARED = {
  'base-url': { type: 'string', value: '<url>', env: 'NUMBERS_API_BASE_URL', help: 'the API: a running mock or a deployment' },
  'api-key': { type: 'string', value: '<key>', env: 'NUMBERS_API_KEY', help: 'the API key (sk_live_...); the environment keeps it out of the shell history. It never appears in any output' },
  'control-token': { type: 'string', value: '<token>', env: 'NUMBERS_API_CONTROL_TOKEN', help: "the mock's control token (X-Mock-Control-Token), for a mock started with one" },
  port: { type: 'string', value: '<n>', help: 'the port to listen on' },
  host: { type: 'string', value: '<address>', help: 'the address to listen on' },
  quiet: { type: 'boolean', help: 'no line per request' },
  ...DELIVERY,
} as const satisfies Options;

export interface Parsed<O extends Options> {
  values: Values<O>;
  positionals: string[];
  help: boolean;
  /** Where a value came from, for a message that names it: `--base-url`, `NUMBERS_API_BASE_URL`. */
  from: (name: keyof O & string) => string;
}

/** The environment variable that gives an option, if one does: `env`, then the older ones. */
export function envSource(option: Option, env: NodeJS.ProcessEnv): string | undefined {
  return [option.env, ...(option.wasEnv ?? [])].find((name): name is string => name !== undefined && Boolean(env[name]));
}

/** Reads `argv` against the options: each flag, else its environment variable; older names too. -h or --help anywhere asks for help. */
export function parseOptions<O extends Options>(options: O, argv: string[], env: NodeJS.ProcessEnv = process.env, positionals = false): Parsed<O> {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '-h' || arg === '--help')) return { values: {}, positionals: [], help: true, from: (name) => `--${name}` };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, option] of Object.entries(options)) {
    for (const flag of [name, ...(option.was ?? [])]) config[flag] = { type: option.type, ...(option.multiple ? { multiple: true } : {}), ...(flag === name && option.short ? { short: option.short } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: positionals, strict: true });
  } catch (error) {
    // parseArgs's refusal as one sentence: its advice on positionals dropped.
    throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, '').replace(/\.?$/, '.'));
  }
  const raw = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [name, option] of Object.entries(options)) {
    const flags = [name, ...(option.was ?? [])].filter((flag) => raw[flag] !== undefined);
    if (flags.length > 0) {
      values[name] = option.multiple ? flags.flatMap((flag) => raw[flag] as string[]) : raw[flags[0]!];
      sources[name] = `--${flags[0]}`;
      continue;
    }
    const variable = envSource(option, env);
    if (variable === undefined) continue;
    const text = env[variable]!;
    values[name] = option.type === 'boolean' ? text === '1' || text === 'true' : option.multiple ? [text] : text;
    sources[name] = variable;
  }
  return { values: values as Values<O>, positionals: parsed.positionals, help: false, from: (name) => sources[name] ?? `--${name}` };
}
