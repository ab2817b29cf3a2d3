import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { DeliveredMessage } from './delivered-message';

export type MessageHandler = (message: DeliveredMessage) => Promise<void>;

export type ConsumerOutcome = 'acked' | 'naked' | 'deferred' | 'dead_lettered';

/**
 * What triage decided for a message as it arrived: set it aside for `deferMs` (nak with that
 * delay), or `absorbed` — taken over by work that acks the message once it resolves (and
 * naks it if it rejects), without a handler slot.
 */
export type TriageVerdict = { readonly deferMs: number } | { readonly absorbed: Promise<void> };

/**
 * Fairness between the keys (e.g. sessions) of one durable. JetStream hands messages out in
 * stream order and counts every delivered, unsettled one against max_ack_pending, so without
 * this one key's backlog (a flood into one chat thread, whose commands run one at a time
 * anyway) holds every handler slot and everyone else waits behind it.
 */
export interface KeyFairness {
  /** The key of a subject; messages without one are not limited. */
  keyOf(subject: string): string | undefined;
  /** Handlers running at once for one key. */
  maxRunningPerKey: number;
  /** Messages of one key held by the runner (running or queued behind it). */
  maxHeldPerKey: number;
  /** Messages held by the runner in all (at least maxInFlight). */
  maxHeld: number;
  /** A message beyond maxHeldPerKey is naked with this delay, to be taken up later. */
  deferMs: number;
  /**
   * Deferred messages one key may have waiting on the server; beyond it the key's messages
   * are dead-lettered (`backlog_limit`), so one key can never fill max_ack_pending.
   */
  maxDeferredPerKey: number;
}

export interface ConsumerRunnerOptions {
  js: JetStreamClient;
  stream: string;
  durable: string;
  /** This service's name, sent as `Tollgate-Service` on a dead-lettered copy. */
  service: string;
  /** Where dead-lettered copies go: `<prefix>.dlq.<service>`. */
  dlqSubject: string;
  handler: MessageHandler;
  logger: Logger;
  /** Messages held at once, handled or not; default 16. */
  maxInFlight?: number;
  /** First nak delay after a transient failure; doubles per delivery. Default 1 s. */
  retryBaseMs?: number;
  /** Ceiling of the nak delay (a retry-after may exceed it). Default 5 min. */
  retryMaxMs?: number;
  /** How long one pull request waits for messages (at least 1 s). Default 10 s. */
  pullExpiresMs?: number;
  /** Pause before pulling again after a failed pull, e.g. while NATS is away. Default 1 s. */
  restartDelayMs?: number;
  /**
   * The server's max_payload in bytes (from the connection's server info), so a dead-lettered
   * copy is cut to fit with its headers instead of failing to publish for ever.
   */
  maxPayloadBytes?: () => number | undefined;
  /**
   * How long messages may wait (available or ack-pending) with none acked or dead-lettered
   * before the runner reports itself stalled. Default 2 min.
   */
  stallAfterMs?: number;
  /** How often the consumer's backlog is read from the server. Default 5 s. */
  progressCheckMs?: number;
  /** Off by default: every message may run as soon as a handler slot is free. */
  fairness?: KeyFairness;
  /**
   * Wait for the server to confirm each ack (default), so an ack lost in a disconnect is
   * logged. A consumer whose handler is idempotent (a redelivery is recognised and dropped)
   * may turn it off and save a request/reply per message.
   */
  confirmAcks?: boolean;
  /**
   * Looked at as each message arrives, before it takes a handler slot (undefined: handle it as
   * usual), e.g. for work the platform has no room for yet. Not asked on the last allowed
   * delivery, nor must it throw for what the handler would refuse: that is the handler's.
   */
  triage?: (subject: string, data: Uint8Array) => TriageVerdict | undefined;
  /**
   * Messages held at once, running or queued for a slot (at least maxInFlight, the default):
   * the next pull is under way while handlers still run.
   */
  maxHeld?: number;
  /** Called once per settled message, e.g. to count outcomes in Prometheus. */
  onOutcome?: (outcome: ConsumerOutcome, subject: string) => void;
  /**
   * How long one handler may run before the runner gives up on it: the message is settled
   * as a transient failure (`handler_timeout`), its slot freed, and whatever the handler
   * does later settles nothing. Default 5 min, far above any handler that is merely slow.
   */
  handlerTimeoutMs?: number;
  /** Called once per handler given up on, e.g. to count it in Prometheus. */
  onAbandoned?: (subject: string) => void;
  /**
   * Handlers parked at once (DeliveredMessage.park): waiting without a slot, beyond the held
   * messages. Past it a park waits in its slot. Default 512, below JetStream's default
   * max_ack_pending (1,000), which every parked message counts against.
   */
  maxParked?: number;
}

export const DEFAULT_HANDLER_TIMEOUT_MS = 5 * 60_000;

/** Whether the runner gets anywhere: what waits on the server, and since when nothing moved. */
export interface ConsumerProgress {
  /** Messages available plus ack-pending (naked ones waiting for their delay included). */
  readonly backlog: number;
  /** Since the last ack or dead-letter, or since the backlog was last seen empty. */
  readonly msSinceProgress: number;
  readonly stalled: boolean;
}
