// Some tools of the compatibility checks log to the console while they run and go on (orval,
// openapi-zod-client, openapi-to-postmanv2 when it cannot merge an `allOf`); what they find is
// read from what they return or throw, so their chatter is kept out of the test output.

/** Runs `run` with console.log, info, warn and error silenced, and puts them back after. */
export async function quietly<T>(run: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  console.log = console.info = console.warn = console.error = () => {};
  try {
    return await run();
  } finally {
    Object.assign(console, saved);
  }
}
