import type { ChildProcess } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GroupRecord } from './leftover-groups';

/** Called by whatever spawns a process group the sandbox must not leave behind. */
export type GroupStarted = (
  name: string,
  child: ChildProcess,
  argv: readonly string[],
  signal: GroupRecord['signal'],
) => void;

/**
 * The process groups npm start runs that are not node services (nats-server, PostgreSQL: they
 * have no IPC channel to notice the launcher die by), in the sandbox's folder, so the next
 * start can stop what a killed one left running. A group is in the file from its spawn until
 * its leader exits; a clean stop leaves no file. Written synchronously — a few hundred bytes —
 * so a kill -9 right after a spawn finds it recorded; owner-only, written aside then renamed,
 * so a kill mid-write never leaves half a file.
 */
export class ProcessGroupRecords {
  private readonly live = new Map<number, GroupRecord>();

  constructor(private readonly dataDir: string) {}

  static path(dataDir: string): string {
    return join(dataDir, 'process-groups.json');
  }

  /** What an earlier start left in the file; nothing when there is none or it is unreadable. */
  static load(dataDir: string): GroupRecord[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(ProcessGroupRecords.path(dataDir), 'utf8'));
    } catch {
      return [];
    }
    return Array.isArray(parsed) ? parsed.filter(isRecord) : [];
  }

  static forget(dataDir: string): void {
    rmSync(ProcessGroupRecords.path(dataDir), { force: true });
  }

  readonly started: GroupStarted = (name, child, argv, signal) => {
    const pgid = child.pid;
    // No pid: the spawn failed, and there is nothing to leave behind.
    if (pgid === undefined) return;
    this.live.set(pgid, { name, pgid, argv: [...argv], signal });
    this.write();
    child.once('exit', () => {
      this.live.delete(pgid);
      this.write();
    });
  };

  private write(): void {
    const path = ProcessGroupRecords.path(this.dataDir);
    if (this.live.size === 0) {
      rmSync(path, { force: true });
      return;
    }
    const temporary = `${path}.${process.pid}`;
    writeFileSync(temporary, JSON.stringify([...this.live.values()], null, 2), { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  }
}

function isRecord(value: unknown): value is GroupRecord {
  const r = value as Partial<GroupRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.name === 'string' &&
    Number.isInteger(r.pgid) &&
    (r.pgid ?? 0) > 1 &&
    Array.isArray(r.argv) &&
    r.argv.length > 0 &&
    r.argv.every((a) => typeof a === 'string') &&
    (r.signal === 'SIGTERM' || r.signal === 'SIGINT')
  );
}
