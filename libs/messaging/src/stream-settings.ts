// What a stream or durable consumer is to be on the server, and how a running one differs:
// pure mappings between Tollgate's definitions and JetStream's configs, which the provisioner
// (stream-provisioner.ts) creates, compares and reports on.
import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/nats-core';
import type { ConsumerDefinition, StreamDefinition } from './definitions';

/** One setting whose running value is not the defined one. Durations are in milliseconds. */
export interface SettingDifference {
  field: string;
  wanted: unknown;
  actual: unknown;
}

export function streamConfig(d: StreamDefinition): Partial<StreamConfig> & { name: string } {
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

export function consumerConfig(d: ConsumerDefinition): Partial<ConsumerConfig> {
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
export function streamDifferences(wanted: StreamDefinition, info: StreamInfo): SettingDifference[] {
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

export function consumerDifferences(
  wanted: ConsumerDefinition,
  info: ConsumerInfo,
): SettingDifference[] {
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
export const CONSUMER_DEFAULTS: Record<string, readonly unknown[]> = {
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
