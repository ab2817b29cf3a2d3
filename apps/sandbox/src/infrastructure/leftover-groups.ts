/**
 * What to do, at the next `npm start`, with each process group an earlier one recorded and
 * never saw end (it was killed before it could stop them): reap the group only when its
 * leader is still the very program started, with the same arguments. A pid is reused once its
 * process is gone, and the process now holding it is none of ours to kill. Pure: what /proc
 * shows is read by the caller.
 */

/** A process the launcher started as the leader of its own group (`detached`: pgid = pid). */
export interface GroupRecord {
  /** What it is, for the log line: `nats-server`, `PostgreSQL`. */
  readonly name: string;
  readonly pgid: number;
  /** Exactly what was spawned: the binary and its arguments. */
  readonly argv: readonly string[];
  /** Its own graceful stop (SIGTERM for nats-server, SIGINT, fast shutdown, for PostgreSQL). */
  readonly signal: 'SIGTERM' | 'SIGINT';
}

/** /proc/<pid> as read: its command line, its process group, and whether it is a zombie. */
export interface ProcessSeen {
  readonly argv: readonly string[];
  readonly pgid: number;
  readonly zombie: boolean;
}

export type LeftoverVerdict =
  | { readonly record: GroupRecord; readonly action: 'reap' }
  /** Nothing to do: it ended after all (or is a zombie waiting for its new parent). */
  | { readonly record: GroupRecord; readonly action: 'gone' }
  /** The pid now belongs to another program (or another group): never touched. */
  | { readonly record: GroupRecord; readonly action: 'leave'; readonly seen: ProcessSeen };

export function leftoverVerdicts(
  records: readonly GroupRecord[],
  seen: ReadonlyMap<number, ProcessSeen>,
): LeftoverVerdict[] {
  return records.map((record) => {
    const now = seen.get(record.pgid);
    if (now === undefined || now.zombie) return { record, action: 'gone' };
    const same =
      now.pgid === record.pgid &&
      now.argv.length === record.argv.length &&
      now.argv.every((arg, i) => arg === record.argv[i]);
    return same ? { record, action: 'reap' } : { record, action: 'leave', seen: now };
  });
}
