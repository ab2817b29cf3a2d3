import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { look } from './leftover-groups.reaper';
import { postmasterVerdict } from './leftover-postmaster';
import { pollUntil } from './local-ports';

/** Its fast shutdown gets this long, as a recorded group's graceful stop does. */
const STOP_MS = 15_000;

/**
 * Before PostgreSQL opens `dataDir`: a server that holds it (left by an npm start that was
 * killed, and not recorded as a group) is stopped; a postmaster.pid whose pid another program
 * holds now is removed as stale. Which of the two, if either, is postmasterVerdict's call.
 */
export async function stopLeftoverPostmaster(
  dataDir: string,
  progress: (line: string) => void,
): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const text = await readFile(pidFile, 'utf8').catch(() => undefined);
  const verdict = postmasterVerdict(dataDir, text, look);
  if (verdict.action === 'stop') {
    progress(`stopping PostgreSQL (pid ${verdict.pid}) left running by an earlier npm start`);
    process.kill(verdict.pid, 'SIGINT');
    await pollUntil(
      'the earlier PostgreSQL to stop',
      () => {
        const now = look(verdict.pid);
        return now === undefined || now.zombie;
      },
      STOP_MS,
    );
  } else if (verdict.action === 'stale') {
    progress(
      `${pidFile} names pid ${verdict.pid}, now \`${verdict.seen.argv.join(' ').slice(0, 80)}\`, ` +
        'not a PostgreSQL on this data: left alone, and the stale file removed',
    );
    await rm(pidFile, { force: true });
  }
}
