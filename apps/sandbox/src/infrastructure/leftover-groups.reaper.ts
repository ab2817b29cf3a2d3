import { readFileSync } from 'node:fs';
import { type GroupRecord, leftoverVerdicts, type ProcessSeen } from './leftover-groups';
import { pollUntil } from './local-ports';
import { ProcessGroupRecords } from './process-group.records';

/** Its own graceful stop gets this long (PostgreSQL's fast shutdown included) before -9. */
const GRACEFUL_MS = 15_000;
const KILLED_MS = 5_000;

/**
 * At start, before anything binds a port or opens the data: stops the nats-server and
 * PostgreSQL an earlier npm start recorded and did not live to stop (it was killed), one line
 * each, and forgets the records. What is stopped is decided by leftoverVerdicts alone.
 */
export async function reapLeftoverGroups(
  dataDir: string,
  progress: (line: string) => void,
): Promise<void> {
  const records = ProcessGroupRecords.load(dataDir);
  const seen = new Map<number, ProcessSeen>();
  for (const { pgid } of records) {
    const now = look(pgid);
    if (now !== undefined) seen.set(pgid, now);
  }
  for (const verdict of leftoverVerdicts(records, seen)) {
    const { name, pgid } = verdict.record;
    if (verdict.action === 'leave') {
      progress(
        `${name} (pid ${pgid}) recorded by an earlier npm start is gone; the pid is now ` +
          `\`${verdict.seen.argv.join(' ').slice(0, 80)}\`, left alone`,
      );
    } else if (verdict.action === 'reap') {
      await reap(verdict.record);
      progress(
        `stopped ${name} (pid ${pgid}) left running by an earlier npm start that was killed`,
      );
    }
  }
  ProcessGroupRecords.forget(dataDir);
}

/** Its graceful stop, then -9 to the whole group if that overruns. */
async function reap({ name, pgid, signal }: GroupRecord): Promise<void> {
  const gone = () => {
    const now = look(pgid);
    return now === undefined || now.zombie;
  };
  try {
    process.kill(pgid, signal);
    await pollUntil(`the earlier ${name} to stop`, gone, GRACEFUL_MS);
  } catch {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
    await pollUntil(`the earlier ${name} to die`, gone, KILLED_MS);
  }
}

/** /proc/<pid>: undefined when there is no such process (or it cannot be seen). */
export function look(pid: number): ProcessSeen | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    // cmdline ends with a NUL: the last field is empty.
    if (argv.at(-1) === '') argv.pop();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which may hold spaces and parentheses: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { argv, pgid: Number(fields[2]), zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}
