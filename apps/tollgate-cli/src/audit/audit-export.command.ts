import { readAudit, sealAudit, unsealedAuditCount } from '@tollgate/audit';
import { type CliCommand, EXIT, UsageError } from '../cli-command';
import { auditCsvLine, auditJsonLine, CSV_HEADER } from './audit-entry.formatter';
import { auditDatabaseOf, DAY_RANGE_HELP, DAY_RANGE_OPTIONS, dayRangeOf } from './audit-options';

export const AUDIT_EXPORT: CliCommand = {
  path: ['audit', 'export'],
  summary: 'print the audit trail of some days, in chain order (jsonl or csv)',
  usage: '--since <date> [--until <date>] [--format jsonl|csv]',
  help: [
    'Prints every audit entry of the days asked for, oldest day first and each day in its',
    "chain's order: who asked for, answered, ran or was refused what, when, with the hash of",
    'the arguments. Streams from the database: any number of entries takes the same memory.',
    'Entries not yet linked into their chain are linked first; any committed after that are',
    'counted on stderr, not listed (export again to include them).',
    'docs/audit.md says which entry answers which question.',
    '',
    'Options:',
    DAY_RANGE_HELP,
    '  --format <f>    jsonl (default): one JSON object per line; csv: a header, then records',
    '  -h, --help      this text',
  ].join('\n'),
  options: { ...DAY_RANGE_OPTIONS, format: { type: 'string' } },

  async run(values, { io, sessionDatabase }) {
    const range = dayRangeOf(values, { sinceRequired: true });
    const format = values.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'csv') {
      throw new UsageError(`--format must be jsonl or csv, got "${String(format)}"`);
    }
    const { dataSource } = await sessionDatabase();
    // Every step committed so far gets its place in the chain, so the export lists it in order.
    await sealAudit(auditDatabaseOf(dataSource));
    const runner = dataSource.createQueryRunner();
    try {
      if (format === 'csv') io.out(CSV_HEADER);
      const line = format === 'csv' ? auditCsvLine : auditJsonLine;
      for await (const entry of readAudit(runner, range)) {
        io.out(line(entry));
        // A slow reader holds the cursor back rather than queueing the trail in memory.
        await io.writable();
      }
    } finally {
      await runner.release();
    }
    const pending = await unsealedAuditCount(dataSource);
    if (pending > 0) io.err(`${pending} entries committed during the export are not listed yet`);
    return EXIT.ok;
  },
};
