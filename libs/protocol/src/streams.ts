import type { Platform } from './platform';
import { streamNamePart } from './subject-prefix';
import { Subjects } from './subjects';

/**
 * JetStream settings as plain data, so this library stays free of NATS types; the messaging
 * library maps them onto the client. Every service compares these with the running stream and
 * only logs a difference (docs/protocol.md §2), so they must be the same in every service.
 */
export interface StreamDefinition {
  readonly name: string;
  readonly subjects: string[];
  readonly retention: 'workqueue' | 'limits';
  /** 0 = unlimited. */
  readonly maxAgeMs: number;
  readonly duplicateWindowMs: number;
  readonly storage: 'file';
  /** Copies kept on a JetStream cluster (1 when absent); 3 survives the loss of one node. */
  readonly replicas?: number;
  /**
   * Added 2026-12-01 (c): the stream's size limit, so no role can fill the disk, and what
   * JetStream does at it: `new` refuses the publish (the publisher sees an error and retries
   * or answers "try again"; nothing is lost silently), `old` drops the oldest message.
   */
  readonly maxBytes: number;
  readonly discard: 'new' | 'old';
}

/** Every Tollgate consumer is also pull, explicit ack and without `backoff` (docs/protocol.md §2). */
export interface ConsumerDefinition {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  readonly ackWaitMs: number;
  readonly maxDeliver: number;
  readonly deliverPolicy: 'all';
  /** Unset: the server's default (1 000 on nats-server 2.9). */
  readonly maxAckPending?: number;
}

export interface StreamDefinitions {
  readonly commands: StreamDefinition;
  readonly outputs: StreamDefinition;
  readonly deadLetters: StreamDefinition;
  /** Added 2026-12-01 (b): the approval API's decision events, read by approval-api. */
  readonly decisions: StreamDefinition;
}

const DAY_MS = 86_400_000;

export const DEFAULT_OUT_MAX_AGE_DAYS = 14;
export const DLQ_MAX_AGE_DAYS = 30;
export const DECISION_MAX_AGE_DAYS = 30;
export const DUPLICATE_WINDOW_MS = 120_000;
export const DEFAULT_ACK_WAIT_MS = 30_000;
export const MAX_DELIVER = 1000;
export const SESSION_SERVICE_DURABLE = 'session-service';
/**
 * Every delivered, unsettled command counts against this, deferred ones included. The
 * session-service holds at most 16 + 1 000 deferred commands of one session (see its
 * consumer's fairness), far below it, so no one session can fill it for the others.
 */
export const SESSION_SERVICE_MAX_ACK_PENDING = 20_000;
/**
 * A binding's durable, shared by all its replicas, counts against this every output a replica
 * holds (64), parks (up to 512) or has handed back to wait for its session's turn (up to 1 000
 * of one session). JetStream's default, 1 000, was below two replicas' parked outputs alone,
 * and one session flooding to its deferred limit filled it, stalling every other session's
 * prompts. 20 000 holds ten replicas' held and parked outputs (5 760) with room for over a
 * dozen sessions at their deferred limit; the server keeps a sequence number per pending
 * message, so the figure costs it little. Beyond it the server stops delivering, which is the
 * backpressure wanted, not a loss.
 */
export const BINDING_MAX_ACK_PENDING = 20_000;

/** Each stream's size limit unless configured (TOLLGATE_STREAM_MAX_BYTES): 1 GiB. */
export const DEFAULT_STREAM_MAX_BYTES = 1024 ** 3;

export function streamDefinitions(
  prefix: string,
  {
    outMaxAgeDays = DEFAULT_OUT_MAX_AGE_DAYS,
    maxBytes = DEFAULT_STREAM_MAX_BYTES,
  }: { outMaxAgeDays?: number; maxBytes?: number } = {},
): StreamDefinitions {
  if (!Number.isFinite(outMaxAgeDays) || outMaxAgeDays <= 0) {
    // 0 would mean "keep outputs forever" to JetStream, which nobody asks for by accident.
    throw new RangeError(`outMaxAgeDays must be a positive number, got ${outMaxAgeDays}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1024 * 1024) {
    throw new RangeError(`maxBytes must be an integer of 1 MiB or more, got ${maxBytes}`);
  }
  const names = streamNames(prefix);
  const subjects = new Subjects(prefix);
  const common = {
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
    storage: 'file',
    maxBytes,
    discard: 'new',
  } as const;
  return {
    commands: {
      ...common,
      name: names.commands,
      subjects: [subjects.commandFilter()],
      retention: 'workqueue',
      maxAgeMs: 0,
    },
    outputs: {
      ...common,
      name: names.outputs,
      subjects: [subjects.outputsAll()],
      retention: 'limits',
      maxAgeMs: Math.round(outMaxAgeDays * DAY_MS),
    },
    deadLetters: {
      ...common,
      // A full DLQ drops its oldest copy rather than refuse a new one: a refused dead letter
      // would be retried by its consumer and block the messages behind it.
      discard: 'old',
      name: names.deadLetters,
      subjects: [subjects.dlqAll()],
      retention: 'limits',
      maxAgeMs: DLQ_MAX_AGE_DAYS * DAY_MS,
    },
    decisions: {
      ...common,
      name: names.decisions,
      subjects: [subjects.decisionsAll()],
      retention: 'limits',
      maxAgeMs: DECISION_MAX_AGE_DAYS * DAY_MS,
    },
  };
}

export function streamNames(prefix: string): {
  commands: string;
  outputs: string;
  deadLetters: string;
  decisions: string;
} {
  const part = streamNamePart(prefix);
  return {
    commands: `${part}_CMD`,
    outputs: `${part}_OUT`,
    deadLetters: `${part}_DLQ`,
    decisions: `${part}_DECISION`,
  };
}

/**
 * The only consumer of the work-queue command stream: a work queue admits one consumer per
 * subject, so anyone else watching commands uses a core subscription.
 */
export function sessionServiceConsumer(
  prefix: string,
  ackWaitMs = DEFAULT_ACK_WAIT_MS,
): ConsumerDefinition {
  return {
    stream: streamNames(prefix).commands,
    durable: SESSION_SERVICE_DURABLE,
    filterSubject: new Subjects(prefix).commandFilter(),
    ackWaitMs: checkedAckWait(ackWaitMs),
    maxDeliver: MAX_DELIVER,
    deliverPolicy: 'all',
    maxAckPending: SESSION_SERVICE_MAX_ACK_PENDING,
  };
}

/**
 * Shared by every replica of one platform's binding. Deliver policy `all`, so outputs published
 * before the binding's first start are not missed.
 */
export function bindingConsumer(
  prefix: string,
  platform: Platform,
  ackWaitMs = DEFAULT_ACK_WAIT_MS,
): ConsumerDefinition {
  return {
    stream: streamNames(prefix).outputs,
    durable: bindingDurable(platform),
    filterSubject: new Subjects(prefix).outputFilter(platform),
    ackWaitMs: checkedAckWait(ackWaitMs),
    maxDeliver: MAX_DELIVER,
    deliverPolicy: 'all',
    maxAckPending: BINDING_MAX_ACK_PENDING,
  };
}

export function bindingDurable(platform: Platform): string {
  return `${platform}-binding`;
}

function checkedAckWait(ackWaitMs: number): number {
  if (!Number.isSafeInteger(ackWaitMs) || ackWaitMs <= 0) {
    throw new RangeError(`ackWaitMs must be a positive integer, got ${ackWaitMs}`);
  }
  return ackWaitMs;
}

export const APPROVAL_API_DURABLE = 'approval-api';

/**
 * approval-api's durable on the decision stream (docs/protocol.md, the approval API), shared
 * by every replica: each decision event is applied to the read model by one of them, and the
 * others hear of it through PostgreSQL. Deliver policy `all`, so decisions made while no
 * replica ran are not missed.
 */
export function approvalApiConsumer(
  prefix: string,
  ackWaitMs = DEFAULT_ACK_WAIT_MS,
): ConsumerDefinition {
  return {
    stream: streamNames(prefix).decisions,
    durable: APPROVAL_API_DURABLE,
    filterSubject: new Subjects(prefix).decisionsAll(),
    ackWaitMs: checkedAckWait(ackWaitMs),
    maxDeliver: MAX_DELIVER,
    deliverPolicy: 'all',
  };
}
