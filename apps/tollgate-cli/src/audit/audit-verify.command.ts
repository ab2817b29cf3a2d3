import {
  AuditVerifier,
  readAudit,
  readAuditDays,
  sealAudit,
  unsealedAuditCount,
} from '@tollgate/audit';
import { type CliCommand, EXIT } from '../cli-command';
import { auditDatabaseOf, DAY_RANGE_HELP, DAY_RANGE_OPTIONS, dayRangeOf } from './audit-options';

/** Exit code of a broken chain: the check ran and found tampering (not a usage error). */
const EXIT_BROKEN = 3;

export const AUDIT_VERIFY: CliCommand = {
  path: ['audit', 'verify'],
  summary: "recompute the audit trail's hash chains and name the first broken entry",
  usage: '[--since <date>] [--until <date>]',
  help: [
    "Recomputes every entry's SHA-256 and its link to the one before, day by day, and checks",
    "each day's chain ends at the head recorded for it. Exits 0 when every chain holds, 3",
    'naming the first broken entry (seq, day, position) when one does not. Days pruned by',
    'retention keep their head and are not counted as broken. Entries not yet linked into',
    'their chain are linked first; any committed after that are reported as pending, not',
    'as broken.',
    '',
    'Options:',
    DAY_RANGE_HELP.replace('first day', 'first day (default: the oldest)'),
    '  -h, --help      this text',
  ].join('\n'),
  options: { ...DAY_RANGE_OPTIONS },

  async run(values, { io, sessionDatabase }) {
    const range = dayRangeOf(values, { sinceRequired: false });
    const { dataSource } = await sessionDatabase();
    // Committed entries the sealer has not reached yet are linked now, not taken for breaks.
    await sealAudit(auditDatabaseOf(dataSource));
    const heads = await readAuditDays(dataSource, range);
    const verifier = new AuditVerifier(new Map(heads.map((h) => [h.day, h])));
    const runner = dataSource.createQueryRunner();
    try {
      for await (const entry of readAudit(runner, range)) {
        if (!verifier.add(entry)) break;
      }
    } finally {
      await runner.release();
    }
    const broken = verifier.finish();
    if (broken) {
      const where = broken.seq === null ? '' : `seq ${broken.seq}, `;
      const position = broken.n === null ? '' : `, entry ${broken.n}`;
      io.err(`audit chain broken at ${where}day ${broken.day}${position}: ${broken.problem}`);
      return EXIT_BROKEN;
    }
    const pruned = heads.filter((h) => h.pruned).length;
    const pending = await unsealedAuditCount(dataSource);
    io.out(
      `audit chain intact: ${verifier.verified} entries over ${heads.length - pruned} days` +
        (pruned > 0 ? ` (${pruned} pruned days keep their heads)` : '') +
        (pending > 0 ? `; ${pending} entries committed meanwhile are pending, not yet linked` : ''),
    );
    return EXIT.ok;
  },
};
