import type {
  DiscordApiFake,
  FakeDiscordMessage,
  FakeDiscordModal,
} from '@tollgate/platform-standins';
import { PEOPLE, type PersonKey, personById } from './sandbox-people';
import type { PanelForm, PanelMessage, PanelView } from './sandbox-platform.port';

/**
 * Why this file exists: what one person sees of the sandbox's Discord channel — who sees an
 * ephemeral answer, how a `/ask` reads, which buttons a message shows — is a projection of
 * what was recorded, kept apart from driving the binding (signing and POSTing interactions).
 */

export const DISCORD_CHANNEL = '1300000000000000001';
const STYLES: Record<number, 'primary' | 'danger' | 'default'> = { 1: 'primary', 4: 'danger' };

/** A `/ask` someone ran: Discord shows it as the bot's reply headed "<name> used /ask". */
export interface Ask {
  readonly token: string;
  readonly person: PersonKey;
  readonly text: string;
  readonly at: number;
  /** The binding's answer to the interaction, when it answered with a message. */
  answer?: string;
  /** Whether that answer was ephemeral: shown to the person who ran the command only. */
  private?: boolean;
}

/** An ephemeral answer to a click: Discord shows it to the clicker alone. */
export interface AnsweredNotice {
  readonly person: PersonKey;
  readonly content: string;
  readonly at: number;
}

export interface DiscordSeen {
  readonly standin: Pick<DiscordApiFake, 'messages' | 'notices' | 'original'>;
  readonly asks: readonly Ask[];
  readonly answers: readonly AnsweredNotice[];
  /** The viewer's open form, if any. */
  readonly form: PanelForm | undefined;
}

/** The channel as `viewer` sees it: shared messages, and what is private to them. */
export function discordView(viewer: PersonKey, seen: DiscordSeen): PanelView {
  const { standin, asks, answers, form } = seen;
  const messages: PanelMessage[] = asks
    .filter((ask) => !ask.private || ask.person === viewer)
    .map((ask) => ({
      id: `ask-${ask.token.slice(-12)}`,
      author: 'Tollgate',
      fromBot: true,
      at: ask.at,
      parts: [
        { kind: 'context', text: `${PEOPLE[ask.person].name} used /ask: ${ask.text}` },
        {
          kind: 'text',
          text: ask.answer ?? standin.original(ask.token)?.content ?? 'Tollgate is thinking…',
        },
      ],
      buttons: [],
      edits: 0,
      ...(ask.private ? { privateTo: ask.person } : {}),
    }));
  for (const [index, notice] of answers.entries()) {
    if (notice.person !== viewer) continue;
    messages.push(privateText(`answer-${index}`, notice.at, notice.content, notice.person));
  }
  messages.push(
    ...standin.messages.filter((m) => m.channel_id === DISCORD_CHANNEL).map(channelMessage),
  );
  for (const [index, notice] of standin.notices.entries()) {
    const person = personById('discord', notice.userId);
    if (person?.key !== viewer) continue;
    messages.push(privateText(`notice-${index}`, notice.at.getTime(), notice.content, person.key));
  }
  return {
    platform: 'discord',
    real: false,
    messages: messages.sort((a, b) => a.at - b.at),
    ...(form ? { form } : {}),
  };
}

/** A modal as the panel's form; its id is the sandbox's, as Discord gives modals none. */
export function discordForm(id: string, modal: FakeDiscordModal): PanelForm {
  return {
    id,
    title: modal.title,
    submitLabel: 'Submit',
    fields: modal.inputs.map((input) => ({
      name: input.customId,
      label: input.label,
      value: input.value ?? '',
      ...(input.placeholder === undefined ? {} : { hint: input.placeholder }),
      multiline: input.style === 2,
    })),
  };
}

function privateText(id: string, at: number, text: string, person: PersonKey): PanelMessage {
  return {
    id,
    author: 'Tollgate',
    fromBot: true,
    at,
    parts: [{ kind: 'text', text }],
    buttons: [],
    edits: 0,
    privateTo: person,
  };
}

/** A channel message; each button's ref is what a click on it sends back. */
function channelMessage(m: FakeDiscordMessage): PanelMessage {
  return {
    id: m.id,
    author: 'Tollgate',
    fromBot: true,
    at: m.created_at.getTime(),
    parts: [{ kind: 'text', text: m.content }],
    buttons: m.components.flatMap((row) =>
      row.components.map((b) => ({
        label: b.label ?? '',
        style: STYLES[b.style] ?? 'default',
        disabled: b.disabled === true,
        ref: JSON.stringify({ messageId: m.id, customId: b.custom_id ?? '' }),
      })),
    ),
    edits: m.edits,
  };
}
