import type { KeyObject } from 'node:crypto';
import { promptRefOf } from '@tollgate/binding-core';
import type { Conversation, Person } from '@tollgate/protocol';
import {
  CUSTOM_ID_PREFIX,
  parseCustomId,
} from '../../../apps/discord-binding/src/rendering/discord-prompt.renderer';
import {
  DiscordApiFake,
  type DiscordApiCall,
  type DiscordFault,
  type DiscordMethod,
  type FakeDiscordMessage,
  type FakeDiscordModal,
  modalSubmitInteraction,
} from '@tollgate/platform-standins';
import {
  askCommandInteraction,
  buttonClickInteraction,
  discordKeyPairFromPhrase,
  generateDiscordKeyPair,
  interactionToken,
  nextSnowflake,
  signDiscordRequest,
} from '@tollgate/platform-standins';
import type {
  ButtonTamper,
  CallScope,
  ChatButton,
  ChatMessageView,
  EditFormView,
  PlatformCall,
  PlatformDriver,
  PlatformFault,
  PrivateNotice,
  Signing,
} from '../platform-driver';
import { faultScopeOf, withinScope } from './call-scope';

/** What the suite's Discord signing key is derived from (docs/contract.md gives its public key). */
export const CONTRACT_DISCORD_KEY_PHRASE = 'tollgate contract suite: the stand-in Discord app';

const METHODS: Record<PlatformCall, DiscordMethod | '*'> = {
  post: 'createMessage',
  edit: 'editMessage',
  read: 'listMessages',
  any: '*',
};

const STYLES: Record<number, ChatButton['style']> = { 1: 'primary', 4: 'danger' };

function discordFault(fault: PlatformFault): DiscordFault {
  switch (fault.kind) {
    case 'server_error':
      return { status: 503 };
    case 'rate_limited':
      return { rateLimit: fault.retryAfterSeconds };
    case 'timeout':
      return { hangMs: Infinity };
    case 'accept_then_timeout':
      return { acceptThenTimeout: true };
    case 'refused':
      return { refuse: { status: 404, code: 10003, message: 'Unknown Channel' } };
  }
}

export class DiscordDriver implements PlatformDriver {
  readonly platform = 'discord' as const;
  readonly fake = new DiscordApiFake();
  /**
   * The app's signing keys: Discord signs with the private one, the binding checks the public
   * one. Fixed, so a binding started by hand can be given DISCORD_PUBLIC_KEY beforehand.
   */
  readonly keys = discordKeyPairFromPhrase(CONTRACT_DISCORD_KEY_PHRASE);
  /** Another app's key: what a forged request is signed with. */
  private readonly forger = generateDiscordKeyPair();

  async start(options: { port?: number } = {}): Promise<void> {
    await this.fake.start(options);
  }

  async stop(): Promise<void> {
    await this.fake.stop();
  }

  bindingEnv(replica?: string): Record<string, string> {
    return {
      DISCORD_BOT_TOKEN: this.fake.botToken,
      DISCORD_PUBLIC_KEY: this.keys.publicKeyHex,
      DISCORD_APPLICATION_ID: this.fake.applicationId,
      DISCORD_API_URL: replica === undefined ? this.fake.apiUrl : this.fake.apiUrlFor(replica),
    };
  }

  /** A guild text channel no other test uses; Discord has no threads in this binding. */
  freshConversation(): Conversation {
    return {
      platform: 'discord',
      workspaceId: this.fake.guildId,
      channelId: nextSnowflake(),
      threadId: '',
    };
  }

  failNext(
    call: PlatformCall,
    fault: PlatformFault,
    scope: CallScope & { readonly times?: number } = {},
  ): void {
    this.fake.failNext(METHODS[call], discordFault(fault), scope.times ?? 1, faultScopeOf(scope));
  }

  clearFaults(): void {
    this.fake.clearFaults();
  }

  setLatencyMs(ms: number): void {
    this.fake.setLatencyMs(ms);
  }

  callTimes(call: PlatformCall, scope: CallScope = {}): number[] {
    const method = METHODS[call];
    const matches = (c: DiscordApiCall): boolean =>
      (method === '*' || c.method === method) && withinScope(c, c.channel, scope);
    return this.fake.calls.filter(matches).map((c) => new Date(c.at).getTime());
  }

  messages(): ChatMessageView[] {
    return this.fake.messages.map((m) => view(m));
  }

  messagesIn(conversation: Conversation): ChatMessageView[] {
    return this.fake
      .messagesInChannel(conversation.channelId)
      .filter((m) => m.authorId === undefined)
      .map((m) => view(m));
  }

  deleteMessage(message: ChatMessageView): void {
    if (!this.fake.deleteMessage(message.channelId, message.messageId)) {
      throw new Error(`no message ${message.messageId} to delete`);
    }
  }

  addOthersMessages(conversation: Conversation, count: number): void {
    for (let i = 0; i < count; i += 1) {
      this.fake.addUserMessage(conversation.channelId, '80351110224678999', `chatter ${i}`);
    }
  }

  notices(): PrivateNotice[] {
    return this.fake.notices.map((n) => ({ userId: n.userId, text: n.content }));
  }

  /**
   * Calls that set out to post a new message (failed ones included), not counting DMs (they are
   * notices) nor a repeat of an enforced nonce, which Discord answers with the message the
   * first call made instead of posting again.
   */
  postCount(): number {
    const dms = new Set(this.fake.notices.filter((n) => n.via === 'dm').map((n) => n.channelId));
    return this.fake
      .callsTo('createMessage')
      .filter((c) => !dms.has(c.channel) && c.nonceReplayOf === undefined).length;
  }

  async click(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const raw = button.raw as { custom_id: string };
    const token = interactionToken();
    this.fake.issueInteraction({ token, userId: clicker.id, channelId: message.channelId });
    const body = JSON.stringify(
      buttonClickInteraction({
        applicationId: this.fake.applicationId,
        guildId: this.fake.guildId,
        channelId: message.channelId,
        user: user(clicker),
        token,
        customId: raw.custom_id,
        messageId: message.messageId,
      }),
    );
    return this.send(bindingUrl, body, signing);
  }

  async openEditForm(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
  ): Promise<{ response: Response; form?: EditFormView }> {
    const response = await this.click(bindingUrl, message, button, clicker);
    const reply = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { type?: number; data?: unknown } | undefined;
    if (reply?.type !== 9) return { response };
    const modal = this.fake.showModal(clicker.id, message.channelId, reply.data, message.messageId);
    return {
      response,
      form: {
        fields: modal.inputs.map((input) => ({
          label: input.label,
          value: input.value ?? '',
          ...(input.placeholder === undefined ? {} : { hint: input.placeholder }),
        })),
        raw: modal,
      },
    };
  }

  async submitEditForm(
    bindingUrl: string,
    form: EditFormView,
    clicker: Person,
    values: Readonly<Record<string, string>>,
  ): Promise<Response> {
    const modal = form.raw as FakeDiscordModal;
    const token = interactionToken();
    this.fake.issueInteraction({ token, userId: clicker.id, channelId: modal.channelId });
    const byInput = Object.fromEntries(
      modal.inputs.flatMap((input) =>
        Object.hasOwn(values, input.label) ? [[input.customId, values[input.label]]] : [],
      ),
    );
    const body = JSON.stringify(
      modalSubmitInteraction({
        applicationId: this.fake.applicationId,
        guildId: this.fake.guildId,
        modal,
        user: user(clicker),
        values: byInput,
        token,
      }),
    );
    return this.send(bindingUrl, body, 'valid');
  }

  /** The custom id `tg:<optionKey>:<promptRef>` names both. */
  tamperedButton(button: ChatButton, change: ButtonTamper): ChatButton {
    const raw = button.raw as { custom_id: string };
    const own = parseCustomId(raw.custom_id);
    if (!own) throw new Error(`${raw.custom_id} is not a Tollgate button`);
    const optionKey = change.optionKey ?? own.optionKey;
    const promptRef = change.prompt === undefined ? own.promptRef : promptRefOf(change.prompt);
    return { ...button, raw: { custom_id: `${CUSTOM_ID_PREFIX}${optionKey}:${promptRef}` } };
  }

  async say(
    bindingUrl: string,
    conversation: Conversation,
    text: string,
    sender: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const token = interactionToken();
    this.fake.issueInteraction({ token, userId: sender.id, channelId: conversation.channelId });
    const body = JSON.stringify(
      askCommandInteraction({
        applicationId: this.fake.applicationId,
        ...(conversation.workspaceId === '' ? {} : { guildId: conversation.workspaceId }),
        channelId: conversation.channelId,
        user: user(sender),
        token,
        text,
      }),
    );
    return this.send(bindingUrl, body, signing);
  }

  private async send(bindingUrl: string, body: string, signing: Signing): Promise<Response> {
    const response = await fetch(`${bindingUrl}/discord/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.sign(body, signing) },
      body,
    });
    await this.recordEphemeralReply(body, response.clone());
    return response;
  }

  /**
   * An ephemeral answer to an interaction (type 4, flag 64) is what Discord shows its user
   * alone: a private notice as much as a follow-up is.
   */
  private async recordEphemeralReply(body: string, response: Response): Promise<void> {
    if (!response.ok) return;
    const reply = (await response.json().catch(() => undefined)) as
      { type?: number; data?: { content?: string; flags?: number } } | undefined;
    if (reply?.type !== 4 || ((reply.data?.flags ?? 0) & 64) === 0) return;
    const interaction = JSON.parse(body) as {
      member?: { user?: { id?: string } };
      user?: { id?: string };
      channel_id?: string;
    };
    const userId = interaction.member?.user?.id ?? interaction.user?.id;
    if (userId === undefined) return;
    this.fake.showEphemeralResponse(userId, reply.data?.content ?? '', interaction.channel_id);
  }

  private sign(body: string, signing: Signing): Record<string, string> {
    const now = Math.floor(Date.now() / 1000);
    const key: KeyObject = signing === 'forged' ? this.forger.privateKey : this.keys.privateKey;
    // A stale one is a captured request replayed six minutes later.
    return signDiscordRequest(key, signing === 'stale' ? now - 6 * 60 : now, body);
  }
}

function user(person: Person): { id: string; username: string; global_name?: string } {
  return {
    id: person.id,
    username: person.id.toLowerCase(),
    ...(person.displayName ? { global_name: person.displayName } : {}),
  };
}

function view(message: FakeDiscordMessage): ChatMessageView {
  return {
    channelId: message.channel_id,
    messageId: message.id,
    text: message.content,
    buttons: message.components.flatMap((row) =>
      row.components.map((b) => ({
        label: b.label ?? '',
        style: STYLES[b.style] ?? 'default',
        raw: { custom_id: b.custom_id },
      })),
    ),
    edits: message.edits,
  };
}
