// The one error of a bad command line (a flag, a value, a missing argument): the command prints it
// as one line, then where to read the options, and exits 2 (command.ts). test/cli-kit.test.ts fails
// if a second class of it appears.
export class UsageError extends Error {}

/** The exit code of bad usage, for every command. */
export const USAGE_EXIT_CODE = 2;
