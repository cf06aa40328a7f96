// The scan of test/verdicts-as-data.test.ts: lines of code that read meaning back out of a message
// (a regular expression, or a comparison with a literal, applied to it).
// An expression that ends in a message: `message`, `violation.message`, `v.message`, `whole.message`.
const MESSAGE = String.raw`[\w.?!\]\[]*\bmessage`;
// A message property: `violation.message`, `v.message` (a variable named `message` compared with a
// literal is a protocol word, such as a child process's `'stop'`).
const MESSAGE_PROPERTY = String.raw`[\w?!\]\[]+(?:\?\.|!\.|\.)message`;
const READS = [
  // /.../.test(message), /.../.exec(x.message)
  new RegExp(String.raw`\/[^/\n]+\/[gimsuy]*\s*\.\s*(?:test|exec)\(\s*${MESSAGE}\s*\)`),
  // SOME_PATTERN.test(message), where the pattern is a named regular expression
  new RegExp(String.raw`\b[A-Z][A-Z_]+\s*\.\s*(?:test|exec)\(\s*${MESSAGE}\s*\)`),
  // message.replace(/.../), message.match(/.../), message.split(/.../) ...
  new RegExp(String.raw`${MESSAGE}\s*\.\s*(?:replace|replaceAll|match|matchAll|search|split|startsWith|endsWith|includes)\(\s*(?:\/|[A-Z][A-Z_]+\b|['"\`])`),
  // violation.message === 'must have a JSON body', v.message !== NOT_IN_ENUM
  new RegExp(String.raw`${MESSAGE_PROPERTY}\s*[!=]==?\s*(?:['"\`]|[A-Z][A-Z_]+\b)`),
];
// An Error's own message (a library's, such as util.parseArgs's) is not a verdict.
const ERROR_MESSAGE = /\(error as Error\)\.message|\berror\.message/;

/** Every line of `files` that reads meaning out of a message, as `file:line: code`. */
export function messageReads(files: Array<{ file: string; text: string }>): string[] {
  return files.flatMap(({ file, text }) =>
    text.split('\n').flatMap((line, i) => (READS.some((read) => read.test(line)) && !ERROR_MESSAGE.test(line) && !line.trim().startsWith('//') ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

