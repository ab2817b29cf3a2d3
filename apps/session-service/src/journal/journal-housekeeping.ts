import { DLQ_MAX_AGE_DAYS } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';

/**
 * Platforms retry a click for minutes, and an operator may replay a dead-lettered command as
 * long as the DLQ keeps its copy (30 days): the command ledger keeps ids a day longer than
 * that (docs/architecture.md §3.1), so a replay of a command already decided is dropped by
 * its id however late it comes. Sent outbox rows are kept a day for inspection; the journal
 * is never pruned.
 */
export const PROCESSED_COMMAND_RETENTION_DAYS = DLQ_MAX_AGE_DAYS + 1;
export const SENT_OUTBOX_RETENTION_HOURS = 24;

export async function pruneJournalTables(
  dataSource: DataSource,
): Promise<{ commands: number; outbox: number }> {
  const commands: [unknown[], number] = await dataSource.query(
    `DELETE FROM processed_commands WHERE processed_at < now() - make_interval(days => $1)`,
    [PROCESSED_COMMAND_RETENTION_DAYS],
  );
  const outbox: [unknown[], number] = await dataSource.query(
    `DELETE FROM outbox WHERE sent_at < now() - make_interval(hours => $1)`,
    [SENT_OUTBOX_RETENTION_HOURS],
  );
  return { commands: commands[1], outbox: outbox[1] };
}
