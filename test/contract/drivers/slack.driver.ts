import { promptRefOf } from '@tollgate/binding-core';
import type { Conversation, Person } from '@tollgate/protocol';
import { ACTION_ID_PREFIX } from '../../../apps/slack-binding/src/rendering/slack-prompt.renderer';
import {
  SLACK_FAKE_DEFAULTS,
  SlackApiFake,
  type FakeSlackMessage,
  type SlackApiCall,
  type SlackFault,
} from '@tollgate/platform-standins';
import { actionsOf, textContent } from '@tollgate/platform-standins';
import {
  appMentionEvent,
  blockActionsPayload,
  eventCallback,
  type FakeSlackView,
  interactionFormBody,
  viewSubmissionPayload,
} from '@tollgate/platform-standins';
import { signSlackRequest } from '@tollgate/platform-standins';
import { uniqueToken } from '../../support/unique';
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

const SIGNING_SECRET = 'contract-slack-signing-secret';
/** Who starts each conversation's thread, as a person writing to the bot would. */
const THREAD_STARTER = 'U_THREAD_STARTER';

const METHODS: Record<PlatformCall, readonly string[]> = {
  post: ['chat.postMessage'],
  edit: ['chat.update'],
  // A thread is read back through its replies, a channel through its history.
  read: ['conversations.history', 'conversations.replies'],
  any: ['*'],
};

function slackFault(fault: PlatformFault): SlackFault {
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
      return { error: 'channel_not_found' };
  }
}
let tsCounter = 0;

/** A ts no fake message will ever have (the fake counts from 1.7e9 seconds). */
function nextTs(): string {
  tsCounter += 1;
  return `1800000000.${String(tsCounter).padStart(6, '0')}`;
}

function sign(body: string, signing: Signing): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  switch (signing) {
    case 'valid':
      return signSlackRequest(SIGNING_SECRET, body, now);
    case 'forged':
      return signSlackRequest('not-the-signing-secret', body, now);
    case 'stale':
      // A captured request replayed six minutes later.
      return signSlackRequest(SIGNING_SECRET, body, now - 6 * 60);
  }
}

export class SlackDriver implements PlatformDriver {
  readonly platform = 'slack' as const;
  readonly fake = new SlackApiFake();
  /** Thread roots already written, so a later `say` replies in the thread instead. */
  private readonly startedThreads = new Set<string>();

  async start(options: { port?: number } = {}): Promise<void> {
    await this.fake.start(options);
  }

  async stop(): Promise<void> {
    await this.fake.stop();
  }

  bindingEnv(replica?: string): Record<string, string> {
    return {
      SLACK_BOT_TOKEN: this.fake.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: replica === undefined ? this.fake.apiUrl : this.fake.apiUrlFor(replica),
    };
  }

  /** A thread a person started (the fake holds its root, so it can be read back). */
  freshConversation(): Conversation {
    const channelId = `C${uniqueToken('').toUpperCase()}`;
    const root = nextTs();
    this.fake.addUserMessage({
      channel: channelId,
      ts: root,
      user: THREAD_STARTER,
      text: `<@${SLACK_FAKE_DEFAULTS.botUserId}> please help`,
    });
    return {
      platform: 'slack',
      workspaceId: SLACK_FAKE_DEFAULTS.teamId,
      channelId,
      threadId: root,
    };
  }

  failNext(
    call: PlatformCall,
    fault: PlatformFault,
    scope: CallScope & { readonly times?: number } = {},
  ): void {
    for (const method of METHODS[call]) {
      this.fake.failNext(method, slackFault(fault), scope.times ?? 1, faultScopeOf(scope));
    }
  }

  clearFaults(): void {
    this.fake.clearFaults();
  }

  setLatencyMs(ms: number): void {
    this.fake.setLatencyMs(ms);
  }

  callTimes(call: PlatformCall, scope: CallScope = {}): number[] {
    const methods = METHODS[call];
    const matches = (c: SlackApiCall): boolean =>
      (methods.includes('*') || methods.includes(c.method)) &&
      withinScope(c, c.args.channel, scope);
    return this.fake.calls.filter(matches).map((c) => new Date(c.at).getTime());
  }

  messages(): ChatMessageView[] {
    return this.fake.messages.map((m) => this.view(m));
  }

  messagesIn(conversation: Conversation): ChatMessageView[] {
    return this.fake
      .messagesInChannel(conversation.channelId)
      .filter((m) => m.thread_ts === conversation.threadId)
      .filter((m) => m.bot_id !== undefined)
      .map((m) => this.view(m));
  }

  deleteMessage(message: ChatMessageView): void {
    if (!this.fake.deleteMessage(message.channelId, message.messageId)) {
      throw new Error(`no message ${message.messageId} to delete`);
    }
  }

  addOthersMessages(conversation: Conversation, count: number): void {
    for (let i = 0; i < count; i += 1) {
      this.fake.addUserMessage({
        channel: conversation.channelId,
        ...(conversation.threadId ? { thread_ts: conversation.threadId } : {}),
        user: 'U_SOMEONE_ELSE',
        text: `chatter ${i}`,
      });
    }
  }

  notices(): PrivateNotice[] {
    return this.fake.ephemerals.map((e) => ({ userId: e.user, text: e.text }));
  }

  postCount(): number {
    return this.fake.callsTo('chat.postMessage').length;
  }

  async click(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const raw = button.raw as { action_id: string; value: string };
    const stored = this.fake.message(message.channelId, message.messageId);
    const body = interactionFormBody(
      blockActionsPayload({
        teamId: SLACK_FAKE_DEFAULTS.teamId,
        channelId: message.channelId,
        messageTs: message.messageId,
        ...(stored?.thread_ts ? { threadTs: stored.thread_ts } : {}),
        userId: clicker.id,
        ...(clicker.displayName ? { userName: clicker.displayName } : {}),
        actionId: raw.action_id,
        value: raw.value,
        actionTs: nextTs(),
        triggerId: this.fake.issueTriggerId(clicker.id),
        responseUrl: this.fake.responseUrlFor({
          channel: message.channelId,
          user: clicker.id,
          ...(stored?.thread_ts ? { threadTs: stored.thread_ts } : {}),
        }),
      }),
    );
    return fetch(`${bindingUrl}/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body, signing) },
      body,
    });
  }

  async openEditForm(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
  ): Promise<{ response: Response; form?: EditFormView }> {
    const before = this.fake.views.length;
    const response = await this.click(bindingUrl, message, button, clicker);
    const view = this.fake.views.slice(before).find((v) => v.user === clicker.id);
    return {
      response,
      ...(view
        ? {
            form: {
              fields: view.inputs.map((input) => ({
                label: input.label,
                value: input.initialValue ?? '',
                ...(input.hint === undefined ? {} : { hint: input.hint }),
              })),
              raw: view,
            },
          }
        : {}),
    };
  }

  async submitEditForm(
    bindingUrl: string,
    form: EditFormView,
    clicker: Person,
    values: Readonly<Record<string, string>>,
  ): Promise<Response> {
    const view = form.raw as FakeSlackView;
    const byBlock = Object.fromEntries(
      view.inputs.flatMap((input) =>
        Object.hasOwn(values, input.label) ? [[input.blockId, values[input.label]]] : [],
      ),
    );
    const body = interactionFormBody(
      viewSubmissionPayload({
        teamId: SLACK_FAKE_DEFAULTS.teamId,
        userId: clicker.id,
        ...(clicker.displayName ? { userName: clicker.displayName } : {}),
        view,
        values: byBlock,
      }),
    );
    return fetch(`${bindingUrl}/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body, 'valid') },
      body,
    });
  }

  /** The action id names the option, the value the prompt's opaque reference. */
  tamperedButton(button: ChatButton, change: ButtonTamper): ChatButton {
    const raw = button.raw as { action_id: string; value: string };
    return {
      ...button,
      raw: {
        action_id:
          change.optionKey === undefined ? raw.action_id : `${ACTION_ID_PREFIX}${change.optionKey}`,
        value: change.prompt === undefined ? raw.value : promptRefOf(change.prompt),
      },
    };
  }

  async say(
    bindingUrl: string,
    conversation: Conversation,
    text: string,
    sender: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const root = conversation.threadId;
    const first = !this.startedThreads.has(`${conversation.channelId}/${root}`);
    this.startedThreads.add(`${conversation.channelId}/${root}`);
    const event = appMentionEvent({
      channelId: conversation.channelId,
      userId: sender.id,
      text: `<@${SLACK_FAKE_DEFAULTS.botUserId}> ${text}`,
      // The first message is the thread's root; later ones reply in it.
      ts: first ? root : nextTs(),
      ...(first ? {} : { threadTs: root }),
      teamId: conversation.workspaceId,
    });
    const body = JSON.stringify(
      eventCallback({ teamId: conversation.workspaceId, event, eventId: `Ev${uniqueToken('')}` }),
    );
    return fetch(`${bindingUrl}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(body, signing) },
      body,
    });
  }

  private view(message: FakeSlackMessage): ChatMessageView {
    return {
      channelId: message.channel,
      messageId: message.ts,
      text: textContent(message),
      buttons: actionsOf(message).map((b) => ({
        label: b.text,
        style: b.style ?? 'default',
        raw: { action_id: b.action_id, value: b.value },
      })),
      edits: message.edits,
    };
  }
}
