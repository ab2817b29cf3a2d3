import type { AuditEntry } from '@tollgate/audit';

export const CSV_HEADER = [
  'seq',
  'day',
  'n',
  'at',
  'kind',
  'session_id',
  'call_id',
  'who_id',
  'who_name',
  'who_platform',
  'via',
  'arguments_hash',
  'detail',
  'prev_hash',
  'hash',
].join(',');

/** One entry as a JSON line, every field named as in the hash. */
export function auditJsonLine(entry: AuditEntry): string {
  return JSON.stringify(entry);
}

/** One entry as an RFC 4180 CSV record (`detail` as JSON text). */
export function auditCsvLine(entry: AuditEntry): string {
  return [
    entry.seq,
    entry.day,
    String(entry.n),
    entry.at,
    entry.kind,
    entry.sessionId,
    entry.callId ?? '',
    entry.who?.id ?? '',
    entry.who?.displayName ?? '',
    entry.who?.platform ?? '',
    entry.via ?? '',
    entry.argumentsHash ?? '',
    JSON.stringify(entry.detail),
    entry.prevHash,
    entry.hash,
  ]
    .map(csvField)
    .join(',');
}

function csvField(value: string): string {
  // A leading = + - @ would be run as a formula by a spreadsheet opening the export.
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}
