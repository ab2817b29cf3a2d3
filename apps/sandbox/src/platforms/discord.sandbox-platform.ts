import {
  askCommandInteraction,
  buttonClickInteraction,
  DiscordApiFake,
  type DiscordApiFakeSnapshot,
  type DiscordKeyPair,
  type FakeDiscordModal,
  generateDiscordKeyPair,
  interactionToken,
  modalSubmitInteraction,
  signDiscordRequest,
} from '@tollgate/platform-standins';
import { z } from 'zod';
import { FormOutcomes } from './form-outcomes';
import {
  type AnsweredNotice,
  type Ask,
  DISCORD_CHANNEL as CHANNEL,
  discordForm,
  discordView,
} from './discord.sandbox-view';
import { PEOPLE, type PersonKey } from './sandbox-people';
import type { PanelForm, PanelView, SandboxPlatform, AgentRoute } from './sandbox-platform.port';

const refSchema = z.strictObject({ messageId: z.string().max(32), customId: z.string().max(100) });

/** InteractionResponseType CHANNEL_MESSAGE_WITH_SOURCE, and the EPHEMERAL message flag. */
const CHANNEL_MESSAGE = 4;
/** InteractionResponseType MODAL: the click's first response opens a form (G2). */
const MODAL = 9;
const EPHEMERAL = 1 << 6;

interface DiscordSandboxState {
  readonly standin: DiscordApiFakeSnapshot;
  readonly asks: readonly Ask[];
  readonly answers: readonly AnsweredNotice[];
}

const answerSchema = z.looseObject({
  type: z.number(),
  data: z.looseObject({ content: z.string().optional(), flags: z.number().optional() }).optional(),
});

/**
 * Discord in the sandbox: one guild text channel. A message is the `/ask` application command
 * and a click a component interaction, both Ed25519-signed with the app's key and POSTed to
 * /discord/interactions. The binding's answer to an interaction (a message, ephemeral or
 * not) is shown as Discord shows it; later notices come as follow-ups through the stand-in.
 */
export class DiscordSandboxPlatform implements SandboxPlatform {
  readonly platform = 'discord' as const;
  private readonly standin = new DiscordApiFake();
  /** Discord signs with the private key; the binding holds the public one. */
  private readonly keys: DiscordKeyPair = generateDiscordKeyPair();
  private asks: Ask[] = [];
  private answers: AnsweredNotice[] = [];
  private readonly forms = new FormOutcomes();

  async start(): Promise<void> {
    await this.standin.start();
  }

  agentRoute(): AgentRoute {
    return { workspaceId: this.standin.guildId, channelId: CHANNEL };
  }

  async stop(): Promise<void> {
    await this.standin.stop();
  }

  bindingEnv(): Record<string, string> {
    return {
      DISCORD_BOT_TOKEN: this.standin.botToken,
      DISCORD_PUBLIC_KEY: this.keys.publicKeyHex,
      DISCORD_APPLICATION_ID: this.standin.applicationId,
      DISCORD_API_URL: this.standin.apiUrl,
    };
  }

  async say(bindingUrl: string, person: PersonKey, text: string): Promise<number> {
    const token = interactionToken();
    const user = userOf(person);
    this.standin.issueInteraction({ token, userId: user.id, channelId: CHANNEL });
    const ask: Ask = { token, person, text, at: Date.now() };
    this.asks.push(ask);
    const body = JSON.stringify(
      askCommandInteraction({
        applicationId: this.standin.applicationId,
        guildId: this.standin.guildId,
        channelId: CHANNEL,
        user,
        token,
        text,
      }),
    );
    const { status, answer } = await this.send(bindingUrl, body);
    if (answer?.type === CHANNEL_MESSAGE && answer.data?.content !== undefined) {
      ask.answer = answer.data.content;
      ask.private = ((answer.data.flags ?? 0) & EPHEMERAL) !== 0;
    }
    return status;
  }

  async click(bindingUrl: string, person: PersonKey, ref: string): Promise<number> {
    const { messageId, customId } = refSchema.parse(JSON.parse(ref));
    const message = this.standin.message(CHANNEL, messageId);
    const shown = message?.components.some((row) =>
      row.components.some((b) => b.custom_id === customId && !b.disabled),
    );
    if (!shown) return 404;
    const token = interactionToken();
    const user = userOf(person);
    this.standin.issueInteraction({ token, userId: user.id, channelId: CHANNEL });
    const body = JSON.stringify(
      buttonClickInteraction({
        applicationId: this.standin.applicationId,
        guildId: this.standin.guildId,
        channelId: CHANNEL,
        user,
        token,
        customId,
        messageId,
      }),
    );
    const { status, answer } = await this.send(bindingUrl, body);
    if (answer?.type === MODAL) {
      // Discord checks the modal and shows it to the clicker; a malformed one "failed".
      try {
        this.standin.showModal(user.id, CHANNEL, answer.data, messageId);
      } catch (error) {
        this.answers.push({ person, content: 'This interaction failed', at: Date.now() });
        throw error;
      }
    }
    this.noteAnswer(person, answer);
    return status;
  }

  async submitForm(
    bindingUrl: string,
    person: PersonKey,
    formId: string,
    values: Readonly<Record<string, string>>,
  ): Promise<number> {
    const modal = this.openModal(person, formId);
    if (!modal) return 404;
    const token = interactionToken();
    const user = userOf(person);
    this.standin.issueInteraction({ token, userId: user.id, channelId: CHANNEL });
    const body = JSON.stringify(
      modalSubmitInteraction({
        applicationId: this.standin.applicationId,
        guildId: this.standin.guildId,
        modal,
        user,
        values,
        token,
      }),
    );
    const { status, answer } = await this.send(bindingUrl, body);
    // Discord closes a modal on any answer to its submission.
    if (status === 200) this.forms.end(formId);
    this.noteAnswer(person, answer);
    return status;
  }

  closeForm(person: PersonKey, formId: string): boolean {
    if (!this.openModal(person, formId)) return false;
    this.forms.end(formId);
    return true;
  }

  /** A message answering a click or a form is ephemeral in Tollgate's use: the person's own. */
  private noteAnswer(person: PersonKey, answer: z.infer<typeof answerSchema> | undefined): void {
    const content = answer?.data?.content;
    if (answer?.type === CHANNEL_MESSAGE && content !== undefined) {
      this.answers.push({ person, content, at: Date.now() });
    }
  }

  /** Modals have no id of their own on Discord; the stand-in's log position names one here. */
  private openModals(person: PersonKey): { id: string; modal: FakeDiscordModal }[] {
    return this.standin.modals
      .map((modal, index) => ({ id: `modal-${index}`, modal }))
      .filter(
        ({ id, modal }) => modal.userId === PEOPLE[person].ids.discord && this.forms.isOpen(id),
      );
  }

  private openModal(person: PersonKey, id: string): FakeDiscordModal | undefined {
    return this.openModals(person).find((m) => m.id === id)?.modal;
  }

  private formFor(person: PersonKey): PanelForm | undefined {
    const open = this.openModals(person).at(-1);
    return open && discordForm(open.id, open.modal);
  }

  view(viewer: PersonKey): PanelView {
    const { standin, asks, answers } = this;
    return discordView(viewer, { standin, asks, answers, form: this.formFor(viewer) });
  }

  fingerprint(): string {
    const edits = this.standin.messages.reduce((sum, m) => sum + m.edits, 0);
    const originals = this.asks.map((a) => this.standin.original(a.token)?.edits ?? -1).join();
    return `${this.standin.messages.length}/${edits}/${this.standin.notices.length}/${originals}/${this.asks.filter((a) => a.answer !== undefined).length}/${this.answers.length}/${this.standin.modals.length}/${this.forms.signature()}`;
  }

  snapshot(): DiscordSandboxState {
    return { standin: this.standin.snapshot(), asks: this.asks, answers: this.answers };
  }

  restore(snapshot: unknown): void {
    const state = snapshot as DiscordSandboxState;
    this.standin.restore(state.standin);
    this.asks = state.asks.map((ask) => ({ ...ask }));
    this.answers = [...(state.answers ?? [])];
  }

  /** POSTs the signed interaction; Discord shows the binding's answer (a message, or nothing). */
  private async send(
    bindingUrl: string,
    body: string,
  ): Promise<{ status: number; answer: z.infer<typeof answerSchema> | undefined }> {
    const signed = signDiscordRequest(this.keys.privateKey, Math.floor(Date.now() / 1000), body);
    const response = await fetch(`${bindingUrl}/discord/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signed },
      body,
    });
    const read = answerSchema.safeParse(await response.json().catch(() => undefined));
    return { status: response.status, answer: read.success ? read.data : undefined };
  }
}

function userOf(person: PersonKey): { id: string; username: string; global_name: string } {
  const { ids, name, key } = PEOPLE[person];
  return { id: ids.discord, username: key, global_name: name };
}
