import type { CheckpointName } from '../session/domain/session-recorder';

/**
 * Crash tests need the process to die at an exact point of a decision, for real. With
 * TOLLGATE_FAILPOINT set to a checkpoint name, the process kills itself (SIGKILL: no
 * shutdown hooks, no flush) right after that checkpoint commits. Unset in production.
 */
export type Failpoint = (point: CheckpointName) => void;

export const noFailpoint: Failpoint = () => undefined;

export function failpointFor(name: CheckpointName | undefined): Failpoint {
  if (!name) return noFailpoint;
  return (point) => {
    if (point === name) process.kill(process.pid, 'SIGKILL');
  };
}
