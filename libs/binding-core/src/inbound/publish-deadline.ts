/**
 * Slack and Discord give an inbound request 3 s. The publish of its command must be over by
 * this long after the request arrived, so everything the endpoint does first (signature,
 * session and journal lookups, the session's remembering) is inside it, and the endpoint
 * keeps a second for its answer however long those took (R1).
 */
export const COMMAND_PUBLISH_DEADLINE_MS = 2_000;

/** When the platform's request reached the binding (epoch ms), before anything was read. */
export interface InboundArrival {
  readonly receivedAt: number;
}

/** The instant (epoch ms) by which the command of a request that arrived then is stored. */
export function publishDeadline({ receivedAt }: InboundArrival): number {
  return receivedAt + COMMAND_PUBLISH_DEADLINE_MS;
}
