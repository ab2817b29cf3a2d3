/** Headers on every dead-lettered copy (PROTOCOL.md §2), so an operator sees why and whence. */
export const DLQ_HEADERS = {
  reason: 'Tollgate-Dlq-Reason',
  originalSubject: 'Tollgate-Original-Subject',
  service: 'Tollgate-Service',
} as const;
