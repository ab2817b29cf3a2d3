import type { Conversation, Person } from '@tollgate/protocol';
import { signAction } from '../../../apps/mattermost-binding/src/inbound/action-signature';
import {
  MATTERMOST_FAKE_DEFAULTS,
  MattermostApiFake,
  type FakeMattermostDialog,
  type FakeMattermostPost,
  type MattermostApiCall,
  type MattermostFault,
  type MattermostRoute,
  type PostAction,
} from '@tollgate/platform-standins';
import {
  actionCallbackBody,
  dialogSubmissionBody,
  outgoingWebhookBody,
  slashCommandBody,
  tamperedContext,
} from '@tollgate/platform-standins';
import { readAnswerWord } from '@tollgate/binding-core';
import { alice, bob } from '../../support/commands';
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

const ACTION_SECRET = 'contract-mattermost-action-secret';
const COMMAND_TOKEN = 'contract-mattermost-command-token';
/**
 * Where the binding tells Mattermost to send clicks. The binding's port is chosen after its
 * environment, so clicks go to the binding under test at this URL's path (see `click`).
 */
const PUBLIC_URL = 'http://tollgate-binding.test';
/** Who starts each conversation's thread, as a person writing to the bot would. */
const THREAD_STARTER = 'threadstarter0000000000000';
/**
 * The members of every fresh conversation's channel: the binding answers a click only from a
 * member (docs/protocol.md §5), and the suites click as these people.
 */
const CHANNEL_MEMBERS = [THREAD_STARTER, alice.id, bob.id];

const ROUTES: Record<PlatformCall, MattermostRoute | '*'> = {
  post: 'createPost',
  edit: 'patchPost',
  read: 'getChannelPosts',
  any: '*',
};
/** Both ways to edit a post count as an edit. */
const EDIT_ROUTES = new Set<MattermostRoute>(['updatePost', 'patchPost']);
/** A thread is read back by its own route, a channel by another: both count as a read. */
const READ_ROUTES = new Set<MattermostRoute>(['getPostThread', 'getChannelPosts']);

function mattermostFault(fault: PlatformFault): MattermostFault {
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
      return { refuse: 403 };
  }
}

interface RawButton {
  readonly postId: string;
  readonly actionId: string;
  /** Sent instead of the stored context (a tampered button). */
  readonly context?: Record<string, unknown>;
}

export class MattermostDriver implements PlatformDriver {
  readonly platform = 'mattermost' as const;
  readonly fake = new MattermostApiFake();

  async start(options: { port?: number } = {}): Promise<void> {
    await this.fake.start(options);
    // The binding names approvers as the server does (X13), so the server knows their names.
    for (const person of [alice, bob]) {
      if (person.displayName) this.fake.setUsername(person.id, person.displayName);
    }
  }

  async stop(): Promise<void> {
    await this.fake.stop();
  }

  bindingEnv(replica?: string): Record<string, string> {
    return {
      MATTERMOST_URL: replica === undefined ? this.fake.apiUrl : this.fake.apiUrlFor(replica),
      MATTERMOST_TOKEN: this.fake.token,
      MATTERMOST_ACTION_SECRET: ACTION_SECRET,
      MATTERMOST_COMMAND_TOKEN: COMMAND_TOKEN,
      MATTERMOST_PUBLIC_URL: PUBLIC_URL,
    };
  }

  /** A thread a person started (the fake holds its root post, so the thread can be read). */
  freshConversation(): Conversation {
    const channelId = uniqueToken('ch').padEnd(26, '0').slice(0, 26);
    this.fake.addChannelMembers(channelId, CHANNEL_MEMBERS);
    const root = this.fake.addUserPost({
      channel_id: channelId,
      user_id: THREAD_STARTER,
      message: '@tollgate please help',
    });
    return {
      platform: 'mattermost',
      workspaceId: MATTERMOST_FAKE_DEFAULTS.teamId,
      channelId,
      threadId: root,
    };
  }

  failNext(
    call: PlatformCall,
    fault: PlatformFault,
    scope: CallScope & { readonly times?: number } = {},
  ): void {
    const faultOf = mattermostFault(fault);
    const routes: Array<MattermostRoute | '*'> =
      call === 'edit' ? [...EDIT_ROUTES] : call === 'read' ? [...READ_ROUTES] : [ROUTES[call]];
    // An edit is either route: both get the fault, and whichever the binding uses takes it.
    for (const route of routes) {
      this.fake.failNext(route, faultOf, scope.times ?? 1, faultScopeOf(scope));
    }
  }

  clearFaults(): void {
    this.fake.clearFaults();
  }

  setLatencyMs(ms: number): void {
    this.fake.setLatencyMs(ms);
  }

  callTimes(call: PlatformCall, scope: CallScope = {}): number[] {
    const matchesRoute = (c: MattermostApiCall): boolean =>
      call === 'any' ||
      (call === 'post' && c.route === 'createPost') ||
      (call === 'edit' && EDIT_ROUTES.has(c.route)) ||
      (call === 'read' && READ_ROUTES.has(c.route));
    return this.fake.calls
      .filter((c) => matchesRoute(c) && withinScope(c, c.channel, scope))
      .map((c) => new Date(c.at).getTime());
  }

  messages(): ChatMessageView[] {
    return this.botPosts().map((p) => view(p));
  }

  messagesIn(conversation: Conversation): ChatMessageView[] {
    return this.fake
      .postsInChannel(conversation.channelId)
      .filter(
        (p) => p.user_id === this.fake.identity.botUserId && p.root_id === conversation.threadId,
      )
      .map((p) => view(p));
  }

  deleteMessage(message: ChatMessageView): void {
    if (!this.fake.deletePost(message.messageId)) {
      throw new Error(`no post ${message.messageId} to delete`);
    }
  }

  addOthersMessages(conversation: Conversation, count: number): void {
    for (let i = 0; i < count; i += 1) {
      this.fake.addUserPost({
        channel_id: conversation.channelId,
        user_id: 'someoneelse0000000000000000',
        message: `chatter ${i}`,
        ...(conversation.threadId ? { root_id: conversation.threadId } : {}),
      });
    }
  }

  notices(): PrivateNotice[] {
    return this.fake.ephemerals.map((e) => ({ userId: e.user_id, text: e.message }));
  }

  postCount(): number {
    return this.fake.callsTo('createPost').length;
  }

  /**
   * What Mattermost does when the button is clicked: it POSTs the STORED action's integration
   * context (the one no client ever sees) to the stored integration URL, here the binding under
   * test at that URL's path. `forged` and `stale` tamper with that context (see tamperedContext).
   */
  async openEditForm(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
  ): Promise<{ response: Response; form?: EditFormView }> {
    const before = this.fake.dialogs.length;
    const response = await this.click(bindingUrl, message, button, clicker);
    const dialog = this.fake.dialogs.slice(before).find((d) => d.userId === clicker.id);
    return {
      response,
      ...(dialog
        ? {
            form: {
              fields: dialog.elements.map((e) => ({
                label: e.displayName,
                value: e.default ?? '',
                ...(e.helpText === undefined ? {} : { hint: e.helpText }),
              })),
              raw: dialog,
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
    const dialog = form.raw as FakeMattermostDialog;
    const byName = Object.fromEntries(
      dialog.elements.flatMap((e) =>
        Object.hasOwn(values, e.displayName) ? [[e.name, values[e.displayName]]] : [],
      ),
    );
    return fetch(`${bindingUrl}${new URL(dialog.url).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(
        dialogSubmissionBody({
          dialog,
          userId: clicker.id,
          teamId: MATTERMOST_FAKE_DEFAULTS.teamId,
          values: byName,
        }),
      ),
    });
  }

  async click(
    bindingUrl: string,
    message: ChatMessageView,
    button: ChatButton,
    clicker: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const { stored, integration } = this.integrationOf(button);
    const sent = (button.raw as RawButton).context ?? integration.context;
    const context = signing === 'valid' ? sent : tamperedContext(sent, signing);
    const body = actionCallbackBody({
      userId: clicker.id,
      ...(clicker.displayName ? { userName: clicker.displayName } : {}),
      channelId: message.channelId,
      postId: message.messageId,
      context,
      triggerId: this.fake.issueTriggerId(clicker.id, message.channelId),
    });
    const response = await fetch(`${bindingUrl}${new URL(integration.url).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    // The server shows the reply's ephemeral_text to the clicker alone.
    if (response.status === 200) {
      const reply = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { ephemeral_text?: unknown };
      if (typeof reply.ephemeral_text === 'string' && reply.ephemeral_text !== '') {
        this.fake.addEphemeral({
          user_id: clicker.id,
          channel_id: stored.channel_id,
          root_id: stored.root_id,
          message: reply.ephemeral_text,
        });
      }
    }
    return response;
  }

  /**
   * The context Mattermost POSTs back for this button, as one captured from a click (or from a
   * log or proxy on the way) would be: the stored one, nonce and sig included.
   */
  capturedContext(button: ChatButton): Record<string, unknown> {
    return structuredClone(this.integrationOf(button).integration.context);
  }

  /**
   * The stored context with the option or the prompt swapped and signed again with the
   * binding's action secret; the post's nonce is kept, as the captured context carried it.
   */
  tamperedButton(button: ChatButton, change: ButtonTamper): ChatButton {
    const captured = this.capturedContext(button);
    const fields = {
      sessionId: change.prompt?.sessionId ?? String(captured.sessionId),
      callId: change.prompt?.callId ?? String(captured.callId),
      optionKey: change.optionKey ?? String(captured.optionKey),
      nonce: String(captured.nonce),
    };
    const context = { ...fields, sig: signAction(ACTION_SECRET, fields) };
    return { ...button, raw: { ...(button.raw as RawButton), context } satisfies RawButton };
  }

  private integrationOf(button: ChatButton): {
    stored: FakeMattermostPost;
    integration: { url: string; context: Record<string, unknown> };
  } {
    const raw = button.raw as RawButton;
    const stored = this.fake.post(raw.postId);
    if (!stored) throw new Error(`no post ${raw.postId}`);
    const integration = storedIntegration(stored, raw.actionId);
    if (!integration?.url || !integration.context) {
      throw new Error(`post ${raw.postId} never held an integration for ${raw.actionId}`);
    }
    if (!integration.url.startsWith(`${PUBLIC_URL}/`)) {
      throw new Error(`the integration URL ${integration.url} is not under ${PUBLIC_URL}`);
    }
    return { stored, integration: { url: integration.url, context: integration.context } };
  }

  /** A slash command typed in the thread's reply box; `forged`/`stale` carry a wrong token. */
  async say(
    bindingUrl: string,
    conversation: Conversation,
    text: string,
    sender: Person,
    signing: Signing = 'valid',
  ): Promise<Response> {
    const token = signing === 'valid' ? COMMAND_TOKEN : `${signing}-${COMMAND_TOKEN}`;
    // An answer is typed as a reply in the thread (a slash command cannot answer, X13): a real
    // post, which the server's outgoing webhook reports by its id.
    if (readAnswerWord(text) !== undefined) {
      const trigger = '@tollgate';
      const postId = this.fake.addUserPost({
        channel_id: conversation.channelId,
        user_id: sender.id,
        message: `${trigger} ${text}`,
        ...(conversation.threadId ? { root_id: conversation.threadId } : {}),
      });
      return this.postCommand(
        bindingUrl,
        outgoingWebhookBody({
          token,
          teamId: conversation.workspaceId,
          channelId: conversation.channelId,
          userId: sender.id,
          ...(sender.displayName ? { userName: sender.displayName } : {}),
          postId,
          text,
          triggerWord: trigger,
          ...(conversation.threadId ? { rootId: conversation.threadId } : {}),
        }),
      );
    }
    const form = slashCommandBody({
      token,
      teamId: conversation.workspaceId,
      channelId: conversation.channelId,
      userId: sender.id,
      ...(sender.displayName ? { userName: sender.displayName } : {}),
      text,
      ...(conversation.threadId ? { rootId: conversation.threadId } : {}),
    });
    return this.postCommand(bindingUrl, form);
  }

  private postCommand(bindingUrl: string, form: URLSearchParams): Promise<Response> {
    return fetch(`${bindingUrl}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
  }

  private botPosts(): FakeMattermostPost[] {
    return this.fake.posts.filter((p) => p.user_id === this.fake.identity.botUserId);
  }
}

function actionsOf(post: { props: FakeMattermostPost['props'] }): PostAction[] {
  return (post.props.attachments ?? []).flatMap((a) => a.actions ?? []);
}

/**
 * The button's integration as the server holds it: the current version's, or, once an edit
 * removed the button, the last version that had it. The latter is the click that reached the
 * server before the edit did and is delivered after it (an approver whose client still shows
 * the old buttons): Mattermost looks the action up when the click arrives, so only a click
 * racing the edit gets through, and that is what the binding must answer harmlessly.
 */
function storedIntegration(
  post: FakeMattermostPost,
  actionId: string,
): PostAction['integration'] | undefined {
  for (const version of [...post.history].reverse()) {
    const action = actionsOf(version).find((a) => a.id === actionId);
    if (action?.integration) return action.integration;
  }
  return undefined;
}

function view(post: FakeMattermostPost): ChatMessageView {
  const attachmentText = (post.props.attachments ?? []).flatMap((a) =>
    [a.pretext, a.title, a.text].filter((t): t is string => typeof t === 'string' && t !== ''),
  );
  return {
    channelId: post.channel_id,
    messageId: post.id,
    text: [post.message, ...attachmentText].join('\n'),
    buttons: actionsOf(post).map((a) => ({
      label: a.name ?? '',
      style: a.style === 'primary' || a.style === 'danger' ? a.style : 'default',
      raw: { postId: post.id, actionId: a.id ?? '' } satisfies RawButton,
    })),
    edits: post.edits,
  };
}
