// A command declared as data (its name, usage, options, words before and after them) and run the
// one way for all: -h/--help prints the one help shape and exits 0; bad usage prints one line, then
// where to read the options, and exits 2. A group (`numbers-api events`) dispatches to its commands.
import type { CliIo } from './io.js';
import { parseOptions, type Option, type Options, type Parsed } from './options.js';
import { USAGE_EXIT_CODE, UsageError } from './usage-error.js';

export interface CommandSpec<O extends Options = Options> {
  /** As typed: `numbers-api events send`. */
  name: string;
  /** What follows the name on each usage line. */
  usage: string | readonly string[];
  /** Paragraphs between the usage and the options, as written. */
  about?: string;
  options: O;
  /** Paragraphs after the options (environment without a flag, exit codes), as written. */
  notes?: string;
  positionals?: boolean;
  /** The prefix of its error line, when not its name (`diff`). */
  label?: string;
}

const WIDTH = 100;

/** Lines of at most `width` characters, broken at spaces. */
const wrap = (text: string, width: number): string[] => text.replace(new RegExp(`(?![^\\n]{1,${width}}$)([^\\n]{1,${width}})\\s`, 'g'), '$1\n').split('\n');

/** `  --flag <value>          what it does`, wrapped under its column. */
function entry(label: string, text: string, column = 30): string[] {
  const [first, ...rest] = wrap(text, WIDTH - column);
  const pad = ' '.repeat(column);
  const head = `  ${label}`;
  return [...(head.length < column - 1 ? [`${head.padEnd(column)}${first}`] : [head, `${pad}${first}`]), ...rest.map((line) => `${pad}${line}`)];
}

function described(option: Option): string {
  return option.env ? `${option.help} [env ${option.env}${option.wasEnv?.length ? `; ${option.wasEnv.join(', ')}: deprecated` : ''}]` : option.help;
}

export function helpText(command: CommandSpec): string {
  const usage = [command.usage].flat();
  const lines = usage.length === 1 ? [`Usage: ${command.name} ${usage[0]}`] : ['Usage:', ...usage.map((line) => `  ${command.name} ${line}`)];
  if (command.about) lines.push('', command.about.trimEnd());
  lines.push('', 'Options:');
  for (const [name, option] of Object.entries(command.options)) {
    const value = option.value ? ` ${option.value}` : '';
    lines.push(...entry(`${option.short ? `-${option.short}, ` : ''}--${name}${value}`, described(option)));
    for (const old of option.was ?? []) lines.push(...entry(`--${old}${value}`, `deprecated: use --${name}`));
  }
  lines.push(...entry('-h, --help', 'this help'));
  if (command.notes) lines.push('', command.notes.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** Bad usage as every command prints it: one line, then where to read more. */
export function usageLines(command: Pick<CommandSpec, 'name' | 'label'>, problem: string, more = 'the options'): string {
  // Folded onto one line: a usage error is one line whatever its text's wrapping (a layout step, not a reading of it).
  const line = problem.replace(/\s*\n\s*/g, ' ');
  return `${command.label ?? command.name}: ${line}\nRun ${command.name} --help for ${more}.\n`;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Runs a command: its help and its bad usage the one way (UsageError, or `also`: a URL or a file it names); anything else is the command's. */
export function runCommand<O extends Options>(command: CommandSpec<O>, argv: string[], io: CliIo, run: (parsed: Parsed<O>) => number, env?: NodeJS.ProcessEnv, also?: readonly ErrorClass[]): number;
export function runCommand<O extends Options>(command: CommandSpec<O>, argv: string[], io: CliIo, run: (parsed: Parsed<O>) => Promise<number>, env?: NodeJS.ProcessEnv, also?: readonly ErrorClass[]): Promise<number>;
export function runCommand<O extends Options>(command: CommandSpec<O>, argv: string[], io: CliIo, run: (parsed: Parsed<O>) => number | Promise<number>, env: NodeJS.ProcessEnv = process.env, also: readonly ErrorClass[] = []): number | Promise<number> {
  const refuse = (error: unknown): number => {
    if (!(error instanceof UsageError || also.some((kind) => error instanceof kind))) throw error;
    io.stderr(usageLines(command, (error as Error).message));
    return USAGE_EXIT_CODE;
  };
  try {
    const parsed = parseOptions(command.options, argv, env, command.positionals);
    if (parsed.help) {
      io.stdout(helpText(command));
      return 0;
    }
    const result = run(parsed);
    return result instanceof Promise ? result.catch(refuse) : result;
  } catch (error) {
    return refuse(error);
  }
}

export interface GroupSpec {
  name: string;
  /** Paragraphs after the usage line, as written. */
  about?: string;
  /** Paragraphs after the commands, as written. */
  notes?: string;
  commands: Readonly<Record<string, { summary: string; run: (argv: string[], io: CliIo) => number | Promise<number> }>>;
}

export function groupHelp(group: GroupSpec): string {
  const names = Object.keys(group.commands);
  const column = Math.max(...names.map((name) => name.length)) + 5;
  const lines = [`Usage: ${group.name} <command> [options]`, ...(group.about ? ['', group.about.trimEnd()] : []), '', 'Commands:'];
  for (const name of names) lines.push(...entry(name, group.commands[name]!.summary, column));
  lines.push('', `Run ${group.name} <command> --help for a command's options.`);
  if (group.notes) lines.push('', group.notes.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** Runs the group's command named first; help, or one line and exit 2, for anything else. */
export function runGroup(group: GroupSpec, argv: string[], io: CliIo): number | Promise<number> {
  const [name, ...rest] = argv;
  if (name !== undefined && Object.hasOwn(group.commands, name)) return group.commands[name]!.run(rest, io);
  if (name === '-h' || name === '--help' || name === 'help') {
    io.stdout(groupHelp(group));
    return 0;
  }
  const known = Object.keys(group.commands).join(', ');
  io.stderr(usageLines(group, `${name === undefined ? 'a command is needed' : `unknown command "${name}"`} (${known}).`, 'the commands'));
  return USAGE_EXIT_CODE;
}
