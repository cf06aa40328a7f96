// A small file system of its own for the tests of a full or read-only disk: a tmpfs of a few
// kilobytes mounted on a temporary directory (the tests run as root in CI; where mounting is not
// allowed, `canMount` is false and those tests skip, saying why). Unmounted when the test ends.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

function probe(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const canMount = probe();
export const CANNOT_MOUNT = 'cannot mount a tmpfs here (needs root): the full-disk and read-only tests are skipped';

export interface SmallDisk {
  dir: string;
  /** Fills what is left of it with one file (removed by `free`). */
  fill(): void;
  free(): void;
  /** Remounts it read-only, or writable again. */
  readOnly(on: boolean): void;
}

/** A tmpfs of `kilobytes` on a fresh directory, unmounted and removed when the test ends. */
export function smallDisk(kilobytes: number): SmallDisk {
  const dir = mkdtempSync(path.join(tmpdir(), 'small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kilobytes}k,mode=0755`, 'tmpfs', dir]);
  onTestFinished(() => {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      try {
        writeFileSync(filler, Buffer.alloc(kilobytes * 1024));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]);
    },
  };
}
