export * from './audit-entry';
export * from './audit-chain';
export { appendAudit, type AuditQueryable } from './audit-appender';
export { readAudit, readAuditDays, type AuditSession, type DayRange } from './audit-reader';
export { AuditVerifier, type AuditBreak } from './audit-verifier';
export { AuditLog1796256000000 } from './audit-log.migration';
export { auditRetentionDays, DEFAULT_AUDIT_RETENTION_DAYS, pruneAudit } from './audit-pruner';
