import type { Logger } from 'pino';
import type { PromptJournal, PromptLease } from '../journal/prompt-journal.port';

/**
 * Gives a prompt's lease back after an effect that did not happen, so the retry need not wait
 * for it to run out; `holdMs` keeps it held that long (a post that may still land). A release
 * that fails is only logged: the retry then waits for the lease to run out.
 */
export async function releasePromptLease(
  prompts: PromptJournal,
  lease: PromptLease,
  log: Logger,
  holdMs = 0,
): Promise<void> {
  await prompts.release(lease, holdMs).catch((error: unknown) => {
    log.warn({ err: error }, 'could not release the prompt lease; it will run out');
  });
}
