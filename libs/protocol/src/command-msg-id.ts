import type { Command } from './commands.schema';

/**
 * The `Nats-Msg-Id` of a command: `<platform>:<command id>`. JetStream deduplicates by this
 * header across the whole command stream, and command ids are unique per platform only, so an
 * unqualified id would let one platform's id (a free-text Mattermost `trigger_id`) silence
 * another platform's command inside the duplicate window.
 */
export function commandMsgId(command: Command): string {
  return `${command.conversation.platform}:${command.id}`;
}
