// mirrors @tollgate/protocol — the lead switches these to an import once libs/protocol lands.

/** A JetStream stream as the protocol defines it; provisioning creates it from this. */
export interface StreamDefinition {
  name: string;
  subjects: string[];
  retention: 'workqueue' | 'limits';
  /** 0 = unlimited. */
  maxAgeMs: number;
  duplicateWindowMs: number;
  storage: 'file';
}

/** A durable pull consumer as the protocol defines it. */
export interface ConsumerDefinition {
  stream: string;
  durable: string;
  filterSubject: string;
  ackWaitMs: number;
  maxDeliver: number;
  deliverPolicy: 'all';
}

/** Headers a dead-lettered copy carries (PROTOCOL.md §2). */
export const DLQ_HEADERS = {
  reason: 'Tollgate-Dlq-Reason',
  originalSubject: 'Tollgate-Original-Subject',
  service: 'Tollgate-Service',
} as const;
