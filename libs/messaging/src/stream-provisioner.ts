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
}

/**
 * Creates the streams and durable consumers that are missing. An existing one whose settings
 * differ is reported and logged, never updated: during a rolling deploy two versions would
 * otherwise fight over the config.
 */
export async function provision(
  jsm: JetStreamManager,
  plan: ProvisionPlan,
  logger: Logger,
): Promise<ProvisionReport> {
  const report: ProvisionReport = { created: [], unchanged: [], differing: [] };
  const record = (resource: string, outcome: Outcome): void => {
    if (outcome === 'created') {
      report.created.push(resource);
      logger.info({ resource }, 'created');
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
      await provisionConsumer(jsm, consumer),
    );
  }
  return report;
}

type Outcome = 'created' | SettingDifference[];

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
): Promise<Outcome> {
  const existing = await findConsumer(jsm, wanted);
  if (existing) return consumerDifferences(wanted, existing);
  try {
    await jsm.consumers.add(wanted.stream, consumerConfig(wanted));
    return 'created';
  } catch (error) {
    const raced = await findConsumer(jsm, wanted);
    if (!raced) throw error;
    return consumerDifferences(wanted, raced);
  }
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

function streamDifferences(wanted: StreamDefinition, info: StreamInfo): SettingDifference[] {
  const actual = info.config;
  return compare([
    ['subjects', [...wanted.subjects].sort(), [...actual.subjects].sort()],
    ['retention', wanted.retention, actual.retention],
    ['storage', wanted.storage, actual.storage],
    ['max_age', wanted.maxAgeMs, millis(actual.max_age)],
    ['duplicate_window', wanted.duplicateWindowMs, millis(actual.duplicate_window)],
    // Services provision without a count and must not flag an operator's R3 streams.
    ...(wanted.replicas === undefined
      ? []
      : [['num_replicas', wanted.replicas, actual.num_replicas] as [string, unknown, unknown]]),
  ]);
}

function consumerDifferences(wanted: ConsumerDefinition, info: ConsumerInfo): SettingDifference[] {
  const actual = info.config;
  return compare([
    ['ack_policy', AckPolicy.Explicit, actual.ack_policy],
    ['deliver_policy', wanted.deliverPolicy, actual.deliver_policy],
    ['deliver_subject', undefined, actual.deliver_subject || undefined],
    [
      'ack_wait',
      wanted.ackWaitMs,
      actual.ack_wait === undefined ? undefined : millis(actual.ack_wait),
    ],
    ['max_deliver', wanted.maxDeliver, actual.max_deliver],
    ...(wanted.maxAckPending === undefined
      ? []
      : [
          ['max_ack_pending', wanted.maxAckPending, actual.max_ack_pending] as [
            string,
            unknown,
            unknown,
          ],
        ]),
    ['filter_subject', wanted.filterSubject, actual.filter_subject || undefined],
    ['backoff', [], (actual.backoff ?? []).map((ns) => millis(ns))],
  ]);
}

function compare(pairs: [field: string, wanted: unknown, actual: unknown][]): SettingDifference[] {
  return pairs
    .filter(([, wanted, actual]) => JSON.stringify(wanted) !== JSON.stringify(actual))
    .map(([field, wanted, actual]) => ({ field, wanted, actual }));
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
    if (isApiError(error, JetStreamApiCodes.ConsumerNotFound)) return undefined;
    throw error;
  }
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
