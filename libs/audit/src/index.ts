export * from './audit-entry';
export * from './audit-chain';
export { appendAudit, type AuditQueryable } from './audit-appender';
export {
  type AuditDatabase,
  DEFAULT_SEAL_BATCH,
  sealAudit,
  unsealedAuditCount,
} from './audit-sealer';
export { readAudit, readAuditDays, type AuditSession, type DayRange } from './audit-reader';
export { AuditVerifier, type AuditBreak } from './audit-verifier';
export { AuditLog1796256000000 } from './audit-log.migration';
export { AuditSealedLater1796430000000 } from './audit-sealed-later.migration';
export { auditRetentionDays, DEFAULT_AUDIT_RETENTION_DAYS, pruneAudit } from './audit-pruner';
