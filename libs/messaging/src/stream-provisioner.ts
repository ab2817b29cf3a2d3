import {
  AckPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import type { ConsumerDefinition, StreamDefinition } from './definitions';

export interface ProvisionPlan {
  streams: readonly StreamDefinition[];
  consumers: readonly ConsumerDefinition[];
  /**
   * False for a role that may not read stream info (a binding, approval-api): its streams are
   * created by the operator and checked by the session-service, never looked at by it.
   */
  streamsReadable?: boolean;
}

/** One setting whose running value is not the defined one. Durations are in milliseconds. */
export interface SettingDifference {
  field: string;
  wanted: unknown;
  actual: unknown;
}

export interface DifferingResource {
  /** `stream <name>` or `consumer <stream>/<durable>`. */
  resource: string;
  differences: SettingDifference[];
}

export interface ProvisionReport {
  created: string[];
  unchanged: string[];
  differing: DifferingResource[];
  /** Durables whose only differences were fields the caller named updatable, now updated. */
  updated: DifferingResource[];
}

/**
 * Durable settings an operator may change on a running consumer. `max_ack_pending` only
 * bounds how many delivered, unsettled messages the server lets the consumer hold: raising or
 * lowering it redelivers nothing and changes no message's fate, so taking a new figure in
 * place is safe. Every other field stays refused (a changed filter or deliver policy would
 * change what the durable reads; ack_wait and max_deliver each message's fate).
 */
export const UPDATABLE_CONSUMER_FIELDS = ['max_ack_pending'] as const;
export type UpdatableConsumerField = (typeof UPDATABLE_CONSUMER_FIELDS)[number];

export interface ProvisionOptions {
  /**
   * Fields a durable may be updated in, when they are all it differs in (operator's
   * `npm run provision -- --update max_ack_pending`). Services pass none: during a rolling
   * deploy two versions would otherwise fight over the config.
   */
  update?: readonly UpdatableConsumerField[];
}

/** What a service finds when it only checks (it may create nothing): missing or differing. */
export interface VerificationReport {
  missing: string[];
  differing: DifferingResource[];
  /** Each stream looked at: bytes stored and its limit (for a gauge and its alert). */
  usage: { stream: string; bytes: number; maxBytes: number }[];
}

/** One line naming every problem a verification found, for a log line or a readiness reason. */
export function describeVerification(report: VerificationReport): string {
  return [
    ...report.missing.map((resource) => `${resource} does not exist`),
    ...report.differing.map(
      (d) =>
        `${d.resource} differs in ${d.differences
          .map((x) => `${x.field} (wanted ${shown(x.wanted)}, found ${shown(x.actual)})`)
          .join(', ')}`,
    ),
  ].join('; ');
}

/** A setting as a log line shows it: absent is "unset", not the word undefined. */
function shown(value: unknown): string {
  return value === undefined ? 'unset' : JSON.stringify(value);
}

/**
 * Looks up every stream (when the role may) and durable of the plan and compares each one's
 * whole configuration with its definition; creates and changes nothing. A service whose NATS
 * user may not provision (every service of an authenticated deployment) runs this instead of
 * `provision` and is not ready while anything is missing or differs.
 */
export async function verifyProvisioned(
  jsm: JetStreamManager,
  plan: ProvisionPlan,
): Promise<VerificationReport> {
  const report: VerificationReport = { missing: [], differing: [], usage: [] };
  const record = (resource: string, differences: SettingDifference[] | undefined): void => {
    if (differences === undefined) report.missing.push(resource);
    else if (differences.length > 0) report.differing.push({ resource, differences });
  };
  if (plan.streamsReadable !== false) {
    for (const stream of plan.streams) {
      const existing = await findStream(jsm, stream.name);
      record(`stream ${stream.name}`, existing && streamDifferences(stream, existing));
      if (existing) {
        report.usage.push({
          stream: stream.name,
          bytes: existing.state.bytes,
          maxBytes: existing.config.max_bytes,
        });
      }
    }
  }
  for (const consumer of plan.consumers) {
    const existing = await findConsumer(jsm, consumer);
    record(
      `consumer ${consumer.stream}/${consumer.durable}`,
      existing && consumerDifferences(consumer, existing),
    );
  }
  return report;
}

/**
 * Creates the streams and durable consumers that are missing. An existing one whose settings
 * differ is reported and logged, never updated: during a rolling deploy two versions would
 * otherwise fight over the config. The one exception is explicit: a durable that differs only
 * in fields `options.update` names (and UPDATABLE_CONSUMER_FIELDS allows) is updated in place,
 * and that is logged with the old and new values; one that differs in anything else as well
 * is left whole, so a drift is never half-repaired.
 */
export async function provision(
  jsm: JetStreamManager,
  plan: ProvisionPlan,
  logger: Logger,
  options: ProvisionOptions = {},
): Promise<ProvisionReport> {
  const report: ProvisionReport = { created: [], unchanged: [], differing: [], updated: [] };
  const record = (resource: string, outcome: Outcome): void => {
    if (outcome === 'created') {
      report.created.push(resource);
      logger.info({ resource }, 'created');
    } else if (!Array.isArray(outcome)) {
      report.updated.push({ resource, differences: outcome.updated });
      logger.warn(
        { resource, differences: outcome.updated },
        `${resource} updated in ${outcome.updated.map((d) => d.field).join(', ')}, as asked`,
      );
    } else if (outcome.length === 0) {
      report.unchanged.push(resource);
    } else {
      report.differing.push({ resource, differences: outcome });
      logger.warn(
        { resource, differences: outcome },
        `${resource} differs from its definition in ${outcome.map((d) => d.field).join(', ')}; left unchanged`,
      );
    }
  };
  for (const stream of plan.streams) {
    record(`stream ${stream.name}`, await provisionStream(jsm, stream));
  }
  for (const consumer of plan.consumers) {
    record(
      `consumer ${consumer.stream}/${consumer.durable}`,
      await provisionConsumer(jsm, consumer, options.update ?? []),
    );
  }
  return report;
}

type Outcome = 'created' | SettingDifference[] | { updated: SettingDifference[] };

async function provisionStream(jsm: JetStreamManager, wanted: StreamDefinition): Promise<Outcome> {
  const existing = await findStream(jsm, wanted.name);
  if (existing) return streamDifferences(wanted, existing);
  try {
    await jsm.streams.add(streamConfig(wanted));
    return 'created';
  } catch (error) {
    // Another replica may have created it between our look-up and our add.
    const raced = await findStream(jsm, wanted.name);
    if (!raced) throw error;
    return streamDifferences(wanted, raced);
  }
}

async function provisionConsumer(
  jsm: JetStreamManager,
  wanted: ConsumerDefinition,
  updatable: readonly UpdatableConsumerField[],
): Promise<Outcome> {
  const existing = await findConsumer(jsm, wanted);
  if (existing)
    return updatedIfAllowed(jsm, wanted, consumerDifferences(wanted, existing), updatable);
  try {
    await jsm.consumers.add(wanted.stream, consumerConfig(wanted));
    return 'created';
  } catch (error) {
    const raced = await findConsumer(jsm, wanted);
    if (!raced) throw error;
    return consumerDifferences(wanted, raced);
  }
}

/** Updates a durable when every difference is in a field the caller allowed; else reports. */
async function updatedIfAllowed(
  jsm: JetStreamManager,
  wanted: ConsumerDefinition,
  differences: SettingDifference[],
  updatable: readonly UpdatableConsumerField[],
): Promise<Outcome> {
  const allowed = (field: string) =>
    (UPDATABLE_CONSUMER_FIELDS as readonly string[]).includes(field) &&
    (updatable as readonly string[]).includes(field);
  if (differences.length === 0 || !differences.every((d) => allowed(d.field))) return differences;
  // Only the allowed fields are sent; the server keeps the rest of the config as it is.
  const config = consumerConfig(wanted);
  const update: Record<string, unknown> = {};
  for (const { field } of differences) {
    update[field] = (config as Record<string, unknown>)[field] ?? CONSUMER_DEFAULTS[field]?.[0];
  }
  await jsm.consumers.update(wanted.stream, wanted.durable, update);
  return { updated: differences };
}

function streamConfig(d: StreamDefinition): Partial<StreamConfig> & { name: string } {
  return {
    name: d.name,
    subjects: [...d.subjects],
    retention: d.retention,
    storage: d.storage,
    max_age: nanos(d.maxAgeMs),
    duplicate_window: nanos(d.duplicateWindowMs),
    num_replicas: d.replicas ?? 1,
    max_bytes: d.maxBytes,
    discard: d.discard,
  };
}

function consumerConfig(d: ConsumerDefinition): Partial<ConsumerConfig> {
  return {
    durable_name: d.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: d.deliverPolicy,
    ack_wait: nanos(d.ackWaitMs),
    max_deliver: d.maxDeliver,
    filter_subject: d.filterSubject,
    ...(d.maxAckPending === undefined ? {} : { max_ack_pending: d.maxAckPending }),
  };
}

/**
 * Every field of the running stream: those Tollgate sets must equal its definition, and every
 * other one must be at its default (absent, off, empty, -1 for "no limit"), whatever its name,
 * so a field added by someone else — a `republish` to their own inbox, `sources`, a `mirror`,
 * `allow_direct` — is a difference, not something no one looked at.
 */
function streamDifferences(wanted: StreamDefinition, info: StreamInfo): SettingDifference[] {
  const actual = info.config as unknown as Record<string, unknown>;
  const expected: Record<string, unknown> = {
    name: wanted.name,
    subjects: [...wanted.subjects].sort(),
    retention: wanted.retention,
    storage: wanted.storage,
    max_age: wanted.maxAgeMs,
    duplicate_window: wanted.duplicateWindowMs,
    max_bytes: wanted.maxBytes,
    discard: wanted.discard,
  };
  const seen = {
    ...actual,
    subjects: [...((actual.subjects as string[] | undefined) ?? [])].sort(),
    max_age: millis(Number(actual.max_age ?? 0)),
    duplicate_window: millis(Number(actual.duplicate_window ?? 0)),
  };
  // Services provision without a count and must not flag an operator's R3 streams.
  const ignored = wanted.replicas === undefined ? ['num_replicas'] : [];
  if (wanted.replicas !== undefined) expected.num_replicas = wanted.replicas;
  return compareWhole(expected, seen, ignored, STREAM_DEFAULTS);
}

function consumerDifferences(wanted: ConsumerDefinition, info: ConsumerInfo): SettingDifference[] {
  const actual = info.config as unknown as Record<string, unknown>;
  const expected: Record<string, unknown> = {
    durable_name: wanted.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: wanted.deliverPolicy,
    ack_wait: wanted.ackWaitMs,
    max_deliver: wanted.maxDeliver,
    filter_subject: wanted.filterSubject,
  };
  if (wanted.maxAckPending !== undefined) expected.max_ack_pending = wanted.maxAckPending;
  const seen: Record<string, unknown> = {
    ...actual,
    ack_wait: actual.ack_wait === undefined ? undefined : millis(Number(actual.ack_wait)),
  };
  // One filter may come back as `filter_subjects: [f]` (nats-server 2.10 and later).
  const filters = actual.filter_subjects as string[] | undefined;
  if (seen.filter_subject === undefined && filters?.length === 1) {
    seen.filter_subject = filters[0];
    delete seen.filter_subjects;
  }
  // The server names a durable after itself.
  if (seen.name === wanted.durable) delete seen.name;
  return compareWhole(expected, seen, [], CONSUMER_DEFAULTS);
}

/** Values other than "empty" that a field holds when nobody set it. */
const STREAM_DEFAULTS: Record<string, readonly unknown[]> = {
  compression: ['none'],
  num_replicas: [1],
};
const CONSUMER_DEFAULTS: Record<string, readonly unknown[]> = {
  replay_policy: ['instant'],
  max_waiting: [512],
  // The server's default when the definition sets none (binding durables).
  max_ack_pending: [1000],
};

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === -1) {
    return true;
  }
  if (value === '' || value === '0001-01-01T00:00:00Z') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    // Metadata the server itself writes (`_nats.ver`, …) is not a setting.
    return Object.entries(value).every(
      ([key, inner]) => key.startsWith('_nats.') || isEmpty(inner),
    );
  }
  return false;
}

function compareWhole(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  ignored: readonly string[],
  defaults: Record<string, readonly unknown[]>,
): SettingDifference[] {
  const differences: SettingDifference[] = [];
  const fields = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  for (const field of [...fields].sort()) {
    if (ignored.includes(field)) continue;
    const value = actual[field];
    if (field in expected) {
      if (JSON.stringify(expected[field]) !== JSON.stringify(value)) {
        differences.push({ field, wanted: expected[field], actual: value });
      }
    } else if (!isEmpty(value) && !(defaults[field] ?? []).some((d) => d === value)) {
      differences.push({ field, wanted: defaults[field]?.[0], actual: value });
    }
  }
  return differences;
}

async function findStream(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.StreamNotFound)) return undefined;
    throw error;
  }
}

async function findConsumer(
  jsm: JetStreamManager,
  d: ConsumerDefinition,
): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(d.stream, d.durable);
  } catch (error) {
    // No stream, no durable: a binding may not look the stream up to tell them apart.
    if (
      isApiError(error, JetStreamApiCodes.ConsumerNotFound) ||
      isApiError(error, JetStreamApiCodes.StreamNotFound)
    ) {
      return undefined;
    }
    throw error;
  }
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
