import { auditRetentionDays, pruneAudit, sealAudit } from '@tollgate/audit';
import { auditDatabaseOf } from './audit-options';
import { type CliCommand, EXIT, UsageError } from '../cli-command';

export const AUDIT_PRUNE: CliCommand = {
  path: ['audit', 'prune'],
  summary: 'delete audit days older than the retention, keeping each pruned day’s head',
  usage: '',
  help: [
    'Deletes the entries of whole UTC days older than TOLLGATE_AUDIT_RETENTION_DAYS (default',
    '400, at least 183: the EU AI Act wants six months) before today. Each pruned day keeps its',
    'row in audit_days, marked pruned, with its head hash and count; `audit verify` still',
    'checks every day that is left. Run it daily (cron, a Kubernetes CronJob).',
    '',
    'Options:',
    '  -h, --help      this text',
  ].join('\n'),
  options: {},

  async run(_values, { io, env, sessionDatabase }) {
    let retention: number;
    try {
      retention = auditRetentionDays(env.TOLLGATE_AUDIT_RETENTION_DAYS);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const { dataSource } = await sessionDatabase();
    const database = auditDatabaseOf(dataSource);
    // A day's late entries join its chain before the day is pruned, so its head counts them.
    await sealAudit(database);
    const pruned = await pruneAudit(database, retention);
    io.out(
      pruned.days.length === 0
        ? `nothing older than ${retention} days to prune`
        : `pruned ${pruned.entries} entries of ${pruned.days.length} days (${pruned.days[0]} … ${pruned.days[pruned.days.length - 1]}); their heads are kept`,
    );
    return EXIT.ok;
  },
};
