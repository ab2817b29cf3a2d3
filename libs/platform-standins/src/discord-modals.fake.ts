import { interactionToken, nextSnowflake } from './discord-signing';

/**
 * Discord's modals (reference: Interactions › Receiving and Responding, "MODAL" response type 9,
 * and the Text Input component). A modal is only ever the first response to an interaction
 * (never a follow-up, never to another modal's submission), and Discord refuses a malformed one
 * ("This interaction failed"): title 1–45 characters, custom_id 1–100, 1–5 action rows each
 * holding exactly one text input (type 4) with a custom_id unique in the modal, a label 1–45, a
 * style 1 (short) or 2 (paragraph), a value of at most 4,000 and a placeholder of at most 100.
 * Submitting it sends a MODAL_SUBMIT interaction (type 5) with each input's value.
 */

export interface DiscordModalInput {
  readonly customId: string;
  readonly label: string;
  readonly style: 1 | 2;
  readonly value?: string;
  readonly placeholder?: string;
}

export interface FakeDiscordModal {
  /** Who sees it: the user whose interaction it answered. */
  readonly userId: string;
  readonly channelId: string;
  /** The message whose button opened it, if a button did. */
  readonly messageId?: string;
  readonly customId: string;
  readonly title: string;
  readonly inputs: readonly DiscordModalInput[];
}

/** The modal a response holds, as Discord checks it; a string says why Discord would refuse it. */
export function checkDiscordModal(
  data: unknown,
): Omit<FakeDiscordModal, 'userId' | 'channelId' | 'messageId'> | string {
  if (typeof data !== 'object' || data === null) return 'a modal needs data';
  const modal = data as Record<string, unknown>;
  const title = bounded(modal.title, 1, 45);
  if (title === undefined) return 'title must be 1 to 45 characters';
  const customId = bounded(modal.custom_id, 1, 100);
  if (customId === undefined) return 'custom_id must be 1 to 100 characters';
  const rows = modal.components;
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > 5) {
    return 'components must hold 1 to 5 action rows';
  }
  const inputs: DiscordModalInput[] = [];
  for (const raw of rows as unknown[]) {
    const row = raw as { type?: unknown; components?: unknown };
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length !== 1) {
      return 'each action row must hold exactly one text input';
    }
    const input = row.components[0] as Record<string, unknown>;
    if (input.type !== 4) return 'a modal holds only text inputs (type 4)';
    const inputId = bounded(input.custom_id, 1, 100);
    if (inputId === undefined || inputs.some((i) => i.customId === inputId)) {
      return 'each text input needs its own custom_id of 1 to 100 characters';
    }
    const label = bounded(input.label, 1, 45);
    if (label === undefined) return 'a text input label must be 1 to 45 characters';
    if (input.style !== 1 && input.style !== 2) return 'a text input style must be 1 or 2';
    if (input.value !== undefined && bounded(input.value, 0, 4_000) === undefined) {
      return 'a text input value must be at most 4000 characters';
    }
    if (input.placeholder !== undefined && bounded(input.placeholder, 0, 100) === undefined) {
      return 'a text input placeholder must be at most 100 characters';
    }
    inputs.push({
      customId: inputId,
      label,
      style: input.style,
      ...(typeof input.value === 'string' ? { value: input.value } : {}),
      ...(typeof input.placeholder === 'string' ? { placeholder: input.placeholder } : {}),
    });
  }
  return { customId, title, inputs };
}

function bounded(value: unknown, min: number, max: number): string | undefined {
  return typeof value === 'string' && value.length >= min && value.length <= max
    ? value
    : undefined;
}

/** MODAL_SUBMIT (type 5): the person submitted `modal`; inputs left out keep their value. */
export function modalSubmitInteraction(o: {
  applicationId: string;
  guildId?: string;
  modal: FakeDiscordModal;
  user: { id: string; username: string; global_name?: string };
  values: Readonly<Record<string, string>>;
  token?: string;
}): Record<string, unknown> {
  return {
    id: nextSnowflake(),
    application_id: o.applicationId,
    type: 5,
    token: o.token ?? interactionToken(),
    version: 1,
    channel_id: o.modal.channelId,
    channel: { id: o.modal.channelId, type: o.guildId === undefined ? 1 : 0 },
    ...(o.guildId === undefined
      ? { user: o.user, context: 1 }
      : {
          guild_id: o.guildId,
          member: { user: o.user, roles: [], permissions: '0' },
          context: 0,
        }),
    ...(o.modal.messageId
      ? { message: { id: o.modal.messageId, channel_id: o.modal.channelId } }
      : {}),
    data: {
      custom_id: o.modal.customId,
      components: o.modal.inputs.map((input) => ({
        type: 1,
        components: [
          {
            type: 4,
            custom_id: input.customId,
            value: Object.hasOwn(o.values, input.customId)
              ? o.values[input.customId]
              : (input.value ?? ''),
          },
        ],
      })),
    },
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
  };
}
