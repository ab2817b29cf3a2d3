import type { AuditDatabase, DayRange } from '@tollgate/audit';
import type { DataSource } from 'typeorm';
import { UsageError, type OptionValues } from '../cli-command';

export const DAY_RANGE_OPTIONS = {
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

export const DAY_RANGE_HELP = [
  '  --since <date>  first day (YYYY-MM-DD, UTC), inclusive',
  '  --until <date>  last day (YYYY-MM-DD, UTC), inclusive; default: today',
].join('\n');

/** The days asked for, checked: a typo must not silently export or verify nothing. */
export function dayRangeOf(values: OptionValues, options: { sinceRequired: boolean }): DayRange {
  const since = dateOption(values, 'since');
  const until = dateOption(values, 'until');
  if (options.sinceRequired && since === undefined) throw new UsageError('--since is required');
  if (since !== undefined && until !== undefined && since > until) {
    throw new UsageError(`--since ${since} is after --until ${until}`);
  }
  return { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

function dateOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    throw new UsageError(`--${name} must be a date YYYY-MM-DD, got "${String(value)}"`);
  }
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw new UsageError(`--${name} is not a calendar date: "${value}"`);
  }
  return value;
}

/** The session schema's pool as the audit library's sealer and pruner take it. */
export function auditDatabaseOf(dataSource: DataSource): AuditDatabase {
  return {
    query: (sql, parameters) => dataSource.query(sql, parameters as unknown[]),
    transaction: (work) => dataSource.transaction((manager) => work(manager)),
  };
}
