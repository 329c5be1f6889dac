/**
 * Scratch file systems for tests of output paths: a tiny tmpfs (a full disk), a read-only bind
 * mount, an immutable folder. They need root (mount, chattr); each returns undefined with the reason
 * printed when it cannot be made, so the test can skip and say why. Callers unmount in afterAll.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOOL_TIMEOUT_MS = 10_000;

function tryRun(command: string, args: string[]): string | undefined {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: TOOL_TIMEOUT_MS });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `${command} ${args.join(' ')}: ${stderr || (error as Error).message}`;
  }
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export interface ScratchMount {
  path: string;
  /** Why it could not be made; the test skips and prints this. */
  skipReason?: string;
  cleanup(): void;
}

function scratch(
  prefix: string,
  make: (path: string) => string | undefined,
  undo: (path: string) => void,
): ScratchMount {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const path = join(base, 'mnt');
  mkdirSync(path);
  const cleanup = (): void => {
    undo(path);
    rmSync(base, { recursive: true, force: true });
  };
  if (!isRoot) return { path, skipReason: 'not root: cannot mount or chattr', cleanup };
  const failure = make(path);
  if (failure !== undefined) return { path, skipReason: failure, cleanup };
  return { path, cleanup };
}

/** A tmpfs of `sizeBytes` (e.g. 16 KiB): writes beyond it fail with ENOSPC. */
export function tinyTmpfs(sizeBytes = 16 * 1024): ScratchMount {
  return scratch(
    'aifabric-tinyfs-',
    (path) => tryRun('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', path]),
    (path) => void tryRun('umount', [path]),
  );
}

/** A read-only tmpfs (EROFS), with `seed` files written before it is made read-only. */
export function readOnlyTmpfs(seed: Record<string, string> = {}): ScratchMount {
  return scratch(
    'aifabric-rofs-',
    (path) => {
      const failure = tryRun('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', path]);
      if (failure !== undefined) return failure;
      for (const [name, text] of Object.entries(seed)) writeFileSync(join(path, name), text);
      return tryRun('mount', ['-o', 'remount,ro', path]);
    },
    (path) => void tryRun('umount', [path]),
  );
}

/** A folder marked immutable (chattr +i): even root gets EPERM creating files in it. */
export function immutableFolder(): ScratchMount {
  return scratch(
    'aifabric-immutable-',
    (path) => tryRun('chattr', ['+i', path]),
    (path) => void tryRun('chattr', ['-i', path]),
  );
}

/**
 * The mounts one test file made: `use` makes one and keeps it for `cleanupAll` (afterAll), or
 * prints why it could not be made and returns undefined, so the case can skip and say why.
 */
export class ScratchMounts {
  private readonly made: ScratchMount[] = [];

  use(make: () => ScratchMount): ScratchMount | undefined {
    const mount = make();
    this.made.push(mount);
    if (mount.skipReason !== undefined) {
      console.log(`skipped: ${mount.skipReason}`);
      return undefined;
    }
    return mount;
  }

  cleanupAll(): void {
    for (const mount of this.made.splice(0)) mount.cleanup();
  }
}
