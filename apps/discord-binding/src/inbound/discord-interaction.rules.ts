import { type Click, EDIT_ACTION, type IncomingMessage } from '@tollgate/binding-core';
import type { Person } from '@tollgate/protocol';
import { parseCustomId } from '../rendering/discord-prompt.renderer';
import { EDIT_INPUT_PREFIX, promptRefOfModal } from '../rendering/discord-edit-modal.renderer';

/** The fields of an interaction the binding reads (Discord sends many more). */
export interface DiscordInteraction {
  id?: string;
  type?: number;
  token?: string;
  application_id?: string;
  guild_id?: string;
  channel_id?: string;
  channel?: { id?: string };
  member?: { user?: DiscordUser; nick?: string | null };
  user?: DiscordUser;
  data?: {
    name?: string;
    custom_id?: string;
    options?: Array<{ name?: string; type?: number; value?: unknown }>;
    components?: Array<{
      components?: Array<{ custom_id?: string; value?: string }>;
      component?: { custom_id?: string; value?: string };
    }>;
  };
  message?: { id?: string; channel_id?: string };
}

interface DiscordUser {
  id?: string;
  username?: string;
  global_name?: string | null;
}

export const InteractionType = { ping: 1, command: 2, component: 3, modalSubmit: 5 } as const;

export type InteractionVerdict =
  | { readonly kind: 'ping' }
  | {
      readonly kind: 'ask';
      readonly token: string;
      readonly message: IncomingMessage;
    }
  | {
      readonly kind: 'click';
      readonly token: string;
      readonly channelId: string;
      readonly guildId: string;
      readonly click: Click;
    }
  /** G2: "Edit & approve": the first response opens the modal. */
  | {
      readonly kind: 'edit';
      readonly promptRef: string;
      readonly token: string;
      readonly channelId: string;
    }
  /** G2: the modal submitted; `texts` by input index, the click waiting only for the names. */
  | {
      readonly kind: 'edit_submit';
      readonly token: string;
      readonly channelId: string;
      readonly click: Click;
      readonly texts: ReadonlyMap<number, string>;
    }
  | { readonly kind: 'ignore'; readonly reason: string };

/**
 * docs/protocol.md §1.1 for Discord: workspaceId = guild id ('' in a DM), channelId = the channel
 * (or thread channel) of the interaction, threadId = ''. Messages arrive as `/ask text:<…>`;
 * the command id is the interaction id. The person is `member.user` in a guild, `user` in a DM.
 */
export function classifyDiscordInteraction(interaction: DiscordInteraction): InteractionVerdict {
  if (interaction.type === InteractionType.ping) return { kind: 'ping' };
  const user = interaction.member?.user ?? interaction.user;
  const channelId = interaction.channel_id ?? interaction.channel?.id;
  if (!interaction.id || !interaction.token || !user?.id || !channelId) {
    return { kind: 'ignore', reason: 'incomplete_interaction' };
  }
  const sender = person(user.id, user, interaction.member?.nick);
  const guildId = interaction.guild_id ?? '';
  if (interaction.type === InteractionType.command) {
    if (interaction.data?.name !== 'ask') return { kind: 'ignore', reason: 'unknown_command' };
    const text = interaction.data.options?.find((o) => o.name === 'text')?.value;
    if (typeof text !== 'string' || text.trim() === '') {
      return { kind: 'ignore', reason: 'missing_text' };
    }
    return {
      kind: 'ask',
      token: interaction.token,
      message: {
        conversation: { platform: 'discord', workspaceId: guildId, channelId, threadId: '' },
        sender,
        text,
        commandId: interaction.id,
      },
    };
  }
  if (interaction.type === InteractionType.component) {
    const parsed = parseCustomId(interaction.data?.custom_id ?? '');
    if (!parsed) return { kind: 'ignore', reason: 'not_a_tollgate_button' };
    if (parsed.optionKey === EDIT_ACTION) {
      return { kind: 'edit', promptRef: parsed.promptRef, token: interaction.token, channelId };
    }
    return {
      kind: 'click',
      token: interaction.token,
      channelId,
      guildId,
      click: {
        promptRef: parsed.promptRef,
        optionKey: parsed.optionKey,
        clicker: sender,
        commandId: interaction.id,
        ...(interaction.message?.id
          ? {
              messageRef: {
                channelId: interaction.message.channel_id ?? channelId,
                messageId: interaction.message.id,
              },
            }
          : {}),
      },
    };
  }
  if (interaction.type === InteractionType.modalSubmit) {
    const promptRef = promptRefOfModal(interaction.data?.custom_id ?? '');
    if (!promptRef) return { kind: 'ignore', reason: 'not_a_tollgate_modal' };
    return {
      kind: 'edit_submit',
      token: interaction.token,
      channelId,
      texts: modalTexts(interaction.data?.components ?? []),
      click: {
        promptRef,
        optionKey: 'approve_once',
        clicker: sender,
        commandId: interaction.id,
        ...(interaction.message?.id
          ? {
              messageRef: {
                channelId: interaction.message.channel_id ?? channelId,
                messageId: interaction.message.id,
              },
            }
          : {}),
      },
    };
  }
  return { kind: 'ignore', reason: `interaction_type_${String(interaction.type)}` };
}

/** Each Tollgate input's text by its index (`tga:<n>`); anything else is not ours. */
function modalTexts(
  rows: NonNullable<NonNullable<DiscordInteraction['data']>['components']>,
): Map<number, string> {
  const texts = new Map<number, string>();
  for (const row of rows) {
    for (const input of [...(row.components ?? []), ...(row.component ? [row.component] : [])]) {
      const id = input.custom_id ?? '';
      const index = id.startsWith(EDIT_INPUT_PREFIX)
        ? Number(id.slice(EDIT_INPUT_PREFIX.length))
        : NaN;
      if (Number.isInteger(index) && index >= 0 && index < 5) texts.set(index, input.value ?? '');
    }
  }
  return texts;
}

function person(id: string, user: DiscordUser, nick?: string | null): Person {
  const displayName = nick || user.global_name || user.username;
  return { id, ...(displayName ? { displayName } : {}) };
}
