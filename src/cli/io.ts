// Where a command line writes: the package's commands (`numbers-api mock`, `listen`, `events`)
// take one, so a test captures what a user would read. Node-only (process).

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};
