/**
 * A command id from Mattermost's own ids (docs/protocol.md §1), in the binding's own namespace.
 * A `trigger_id` is free text to whoever holds the command token, and JetStream deduplicates
 * `Nats-Msg-Id` (= the command id) across every platform's commands: unprefixed, a Mattermost
 * request could claim a Slack or Discord command's id first and have the real one dropped as
 * a duplicate. No other binding builds an id that starts with `mattermost:`.
 */
export function mattermostCommandId(platformId: string): string {
  return `mattermost:${platformId}`;
}
