import {
  approvalApiConsumer,
  assertSubjectPrefix,
  bindingConsumer,
  PLATFORMS,
  sessionServiceConsumer,
  streamNames,
  Subjects,
  type ConsumerDefinition,
  type Platform,
} from '@tollgate/protocol';

/** The NATS users of one deployment: one per service, and one for operators' tools. */
export const NATS_ROLES = [
  'session-service',
  'slack-binding',
  'discord-binding',
  'mattermost-binding',
  'approval-api',
  'operator',
] as const;
export type NatsRole = (typeof NATS_ROLES)[number];

export interface NatsPermissions {
  /** Subjects the user may publish to; everything else is denied. */
  readonly publish: readonly string[];
  /** Subjects the user may subscribe to; everything else is denied. */
  readonly subscribe: readonly string[];
}

const API = '$JS.API';

/**
 * Where a role receives replies: JetStream API answers, publish acks and, above all, the
 * messages a pull consumer delivers. A shared `_INBOX.>` would let one binding subscribe to
 * another's deliveries, so each role gets its own inbox subtree, and the service connects
 * with it as its inbox prefix.
 */
export function roleInboxPrefix(prefix: string, role: NatsRole): string {
  assertSubjectPrefix(prefix);
  return `_INBOX.${prefix}.${role}`;
}

/**
 * Exactly what each role needs (docs/protocol.md §5): the session-service consumes commands and
 * publishes outputs and decisions; a binding publishes its platform's commands and consumes its
 * platform's outputs; approval-api publishes API commands and consumes decisions; each writes
 * only its own dead-letter subject. Only the operator creates streams and durables
 * (`npm run provision`): `CONSUMER.CREATE` is create-or-update and the first `STREAM.CREATE`
 * sets a stream's whole configuration, so a service holding either could rewrite what others
 * rely on (a `headers_only` durable, a stream republishing to its own inbox). A service looks
 * up its own durable (`CONSUMER.INFO`), pulls from it and acks it; only the session-service
 * may read stream info, which with `subjects_filter` would list another platform's pending
 * calls. No role may update, purge or delete a stream or consumer. The operator provisions
 * everything and reads every stream (the DLQ above all). To replay a dead-lettered message
 * (`tollgate dlq replay`) it may publish commands and outputs, and the marker that records a
 * replay; it can still delete nothing, so every dead-lettered copy stays for its 30 days.
 */
export function natsPermissions(prefix: string, role: NatsRole): NatsPermissions {
  const subjects = new Subjects(prefix);
  switch (role) {
    case 'session-service':
      return serviceRole(
        prefix,
        role,
        sessionServiceConsumer(prefix),
        [subjects.outputsAll(), subjects.decisionsAll()],
        Object.values(streamNames(prefix)),
      );
    case 'slack-binding':
      return bindingRole(prefix, 'slack');
    case 'discord-binding':
      return bindingRole(prefix, 'discord');
    case 'mattermost-binding':
      return bindingRole(prefix, 'mattermost');
    case 'approval-api':
      // Only it may ask for approvals: `<prefix>.cmd.api.>`, which no binding can publish.
      return serviceRole(prefix, role, approvalApiConsumer(prefix), [subjects.apiCommandFilter()]);
    case 'operator':
      return operatorRole(prefix);
  }
}

function bindingRole(prefix: string, platform: Platform): NatsPermissions {
  return serviceRole(prefix, `${platform}-binding`, bindingConsumer(prefix, platform), [
    new Subjects(prefix).platformCommandFilter(platform),
  ]);
}

function serviceRole(
  prefix: string,
  role: NatsRole,
  durable: ConsumerDefinition,
  writes: readonly string[],
  readableStreams: readonly string[] = [],
): NatsPermissions {
  return {
    publish: [
      ...writes,
      new Subjects(prefix).dlq(role),
      // jetstreamManager's account check; it says nothing about any stream's content.
      `${API}.INFO`,
      ...readableStreams.map((stream) => `${API}.STREAM.INFO.${stream}`),
      `${API}.CONSUMER.INFO.${durable.stream}.${durable.durable}`,
      ...consumingApi(durable),
    ],
    subscribe: [`${roleInboxPrefix(prefix, role)}.>`],
  };
}

function operatorRole(prefix: string): NatsPermissions {
  const durables = [
    sessionServiceConsumer(prefix),
    ...PLATFORMS.map((platform) => bindingConsumer(prefix, platform)),
    approvalApiConsumer(prefix),
  ];
  const streams = Object.values(streamNames(prefix));
  const subjects = new Subjects(prefix);
  return {
    publish: [
      subjects.commandFilter(),
      subjects.outputsAll(),
      subjects.dlqReplayMarkerAll(),
      ...provisioningApi(streams, durables),
      `${API}.STREAM.NAMES`,
      `${API}.STREAM.LIST`,
      ...streams.flatMap((stream) => [
        `${API}.STREAM.MSG.GET.${stream}`,
        `${API}.CONSUMER.NAMES.${stream}`,
        `${API}.CONSUMER.LIST.${stream}`,
        `${API}.CONSUMER.INFO.${stream}.*`,
      ]),
    ],
    subscribe: [`${roleInboxPrefix(prefix, 'operator')}.>`],
  };
}

/**
 * What stream-provisioner.ts calls for the operator: the account check of `jetstreamManager`,
 * INFO then CREATE of each stream, INFO then CREATE of each durable. The filter subject is
 * part of the CREATE subject (the server refuses a body whose filter differs).
 */
function provisioningApi(
  streams: readonly string[],
  durables: readonly ConsumerDefinition[],
): string[] {
  return [
    `${API}.INFO`,
    ...streams.flatMap((stream) => [
      `${API}.STREAM.INFO.${stream}`,
      `${API}.STREAM.CREATE.${stream}`,
    ]),
    ...durables.flatMap((d) => [
      `${API}.CONSUMER.INFO.${d.stream}.${d.durable}`,
      `${API}.CONSUMER.CREATE.${d.stream}.${d.durable}.${d.filterSubject}`,
    ]),
  ];
}

/** What consumer-runner.ts calls on its own durable: pull, then ack, nak, term or working. */
function consumingApi(d: ConsumerDefinition): string[] {
  return [
    `${API}.CONSUMER.MSG.NEXT.${d.stream}.${d.durable}`,
    `$JS.ACK.${d.stream}.${d.durable}.>`,
  ];
}
