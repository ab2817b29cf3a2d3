import {
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { ConsumerDefinition, StreamDefinition } from './definitions';
import {
  CONSUMER_DEFAULTS,
  consumerConfig,
  consumerDifferences,
  streamConfig,
  streamDifferences,
  type SettingDifference,
} from './stream-settings';

export type { SettingDifference } from './stream-settings';

export interface ProvisionPlan {
  streams: readonly StreamDefinition[];
  consumers: readonly ConsumerDefinition[];
  /**
   * False for a role that may not read stream info (a binding, approval-api): its streams are
   * created by the operator and checked by the session-service, never looked at by it.
   */
  streamsReadable?: boolean;
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
