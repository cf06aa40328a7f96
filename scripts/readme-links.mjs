// The files a README links to: every relative Markdown link target (`[text](path)` and
// `[text]: path`), without its #fragment, skipping URLs, mailto: and in-page #anchors. Used to
// put those files in each published package (scripts/copy-package-docs.mjs) and to check that
// they are there (test/packaging.test.ts).

const INLINE = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm;

/** Relative link targets of `markdown`, in order, each once. Code spans and fences are skipped. */
export function relativeLinks(markdown) {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const targets = [];
  for (const pattern of [INLINE, REFERENCE]) {
    for (const match of prose.matchAll(pattern)) targets.push(match[1]);
  }
  const files = targets
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#') && !target.startsWith('//'))
    .map((target) => decodeURI(target.split('#')[0]).replace(/^\.\//, ''))
    .filter((target) => target !== '');
  return [...new Set(files)];
}
