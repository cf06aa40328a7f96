// The release rule the breaking-change gate enforces (semver, applied to the contract): a release
// that breaks the previous one must raise the major version of the package.

import type { Change } from './changes.js';

export function majorOf(version: string | undefined): number {
  const match = /^(\d+)\.\d+\.\d+/.exec(version ?? '');
  if (!match) throw new Error(`'${version}' is not a semver version`);
  return Number(match[1]);
}

const describe = (c: Change) => `${c.message} [${c.code}] at ${c.document}#${c.pointer}${c.affects.length ? ` (affects ${c.affects.slice(0, 3).join('; ')}${c.affects.length > 3 ? '; ...' : ''})` : ''}`;

/**
 * Why `version` cannot be released over `baselineVersion` with these breaking changes, or
 * undefined when it can (no breaking change, or a major bump).
 */
export function gateViolation(version: string, baselineVersion: string | undefined, breaking: Change[]): string | undefined {
  if (breaking.length === 0) return undefined;
  if (majorOf(version) > majorOf(baselineVersion)) return undefined;
  return (
    `${breaking.length} breaking change(s) since release ${baselineVersion} need a major version bump ` +
    `(package.json is ${version}; release ${majorOf(baselineVersion) + 1}.0.0, or make the changes compatible):\n` +
    breaking.map((c) => `    - ${describe(c)}`).join('\n')
  );
}
