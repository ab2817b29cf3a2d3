/** Headers on every dead-lettered copy (docs/protocol.md §2), so an operator sees why and whence. */
export const DLQ_HEADERS = {
  reason: 'Tollgate-Dlq-Reason',
  originalSubject: 'Tollgate-Original-Subject',
  service: 'Tollgate-Service',
  /**
   * Set only on a copy whose payload was cut so that it fits the server's max_payload with the
   * headers above: the original payload's size in bytes. The copy keeps the payload's first
   * bytes; `Tollgate-Original-Stream` and `-Seq` say where the original was read from.
   */
  truncatedFrom: 'Tollgate-Dlq-Truncated-From',
  originalStream: 'Tollgate-Original-Stream',
  originalSeq: 'Tollgate-Original-Seq',
} as const;
