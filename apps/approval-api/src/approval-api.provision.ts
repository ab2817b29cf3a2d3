import type { ProvisionPlan } from '@tollgate/messaging';
import { approvalApiConsumer, streamDefinitions } from '@tollgate/protocol';
import type { BaseConfig } from '@tollgate/service-runtime';

/**
 * What approval-api creates at start: the command stream it writes, the decision stream it
 * reads, the dead-letter stream, and its durable on the decisions (docs/protocol.md §2).
 */
export function approvalApiProvisionPlan(
  config: Pick<
    BaseConfig,
    | 'TOLLGATE_SUBJECT_PREFIX'
    | 'TOLLGATE_OUT_MAX_AGE_DAYS'
    | 'TOLLGATE_ACK_WAIT_MS'
    | 'TOLLGATE_STREAM_MAX_BYTES'
  >,
): ProvisionPlan {
  const prefix = config.TOLLGATE_SUBJECT_PREFIX;
  const streams = streamDefinitions(prefix, {
    outMaxAgeDays: config.TOLLGATE_OUT_MAX_AGE_DAYS,
    maxBytes: config.TOLLGATE_STREAM_MAX_BYTES,
  });
  return {
    streams: [streams.commands, streams.decisions, streams.deadLetters],
    // It may not read stream info (no listing what other platforms have pending): the
    // streams are the operator's to create and the session-service's to check.
    streamsReadable: false,
    consumers: [approvalApiConsumer(prefix, config.TOLLGATE_ACK_WAIT_MS)],
  };
}
