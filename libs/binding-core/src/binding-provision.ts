import type { ProvisionPlan } from '@tollgate/messaging';
import { bindingConsumer, streamDefinitions, type Platform } from '@tollgate/protocol';
import type { BaseConfig } from '@tollgate/service-runtime';

type ProvisionConfig = Pick<
  BaseConfig,
  | 'TOLLGATE_SUBJECT_PREFIX'
  | 'TOLLGATE_OUT_MAX_AGE_DAYS'
  | 'TOLLGATE_ACK_WAIT_MS'
  | 'TOLLGATE_STREAM_MAX_BYTES'
>;

/**
 * What a binding creates at start: the commands stream it writes, the outputs stream it reads,
 * the dead-letter stream, and its platform's durable (docs/protocol.md §2).
 */
export function bindingProvisionPlan(config: ProvisionConfig, platform: Platform): ProvisionPlan {
  const prefix = config.TOLLGATE_SUBJECT_PREFIX;
  const streams = streamDefinitions(prefix, {
    outMaxAgeDays: config.TOLLGATE_OUT_MAX_AGE_DAYS,
    maxBytes: config.TOLLGATE_STREAM_MAX_BYTES,
  });
  return {
    streams: [streams.commands, streams.outputs, streams.deadLetters],
    // It may not read stream info (no listing what other platforms have pending): the
    // streams are the operator's to create and the session-service's to check.
    streamsReadable: false,
    consumers: [bindingConsumer(prefix, platform, config.TOLLGATE_ACK_WAIT_MS)],
  };
}
