import { randomBytes } from 'node:crypto';
import {
  actionCallbackBody,
  dialogSubmissionBody,
  type FakeMattermostDialog,
  type FakeMattermostPost,
  MattermostApiFake,
  type MattermostApiFakeSnapshot,
  outgoingWebhookBody,
  type PostAction,
  slashCommandBody,
} from '@tollgate/platform-standins';
import { readAnswerWord } from '@tollgate/binding-core';
import { z } from 'zod';
import { FormOutcomes } from './form-outcomes';
import { PEOPLE, type PersonKey, personById } from './sandbox-people';
import type {
  PanelForm,
  PanelMessage,
  PanelPart,
  PanelView,
  SandboxPlatform,
  AgentRoute,
} from './sandbox-platform.port';

const CHANNEL = 'sandboxchannel000000000000';
const TRIGGER_WORD = '@tollgate';
const refSchema = z.strictObject({ postId: z.string().max(64), actionId: z.string().max(128) });

interface MattermostSandboxState {
  readonly standin: MattermostApiFakeSnapshot;
  readonly rootId: string | undefined;
  /** Kept across starts: buttons already posted carry contexts signed with it. */
  readonly actionSecret: string;
}

/**
 * Mattermost in the sandbox: one channel whose members are Alice and Bob, one thread started by
 * the first message. A message is the `/ask` slash command typed in the thread (form body with
 * the command's token) at /mattermost/commands, and an answer word a reply in the thread that
 * the outgoing webhook reports by its post id (a slash command cannot answer); a click is what the server does with a button:
 * it POSTs the action's stored integration context, which no client ever sees, to the stored
 * integration URL. The reply's `ephemeral_text` is shown to the clicker alone.
 */
export class MattermostSandboxPlatform implements SandboxPlatform {
  readonly platform = 'mattermost' as const;
  private readonly standin = new MattermostApiFake();
  private readonly commandToken = randomBytes(13).toString('hex');
  private actionSecret = randomBytes(24).toString('hex');
  private rootId: string | undefined;
  private readonly forms = new FormOutcomes();

  async start(): Promise<void> {
    await this.standin.start();
    this.standin.addChannelMembers(
      CHANNEL,
      Object.values(PEOPLE).map((p) => p.ids.mattermost),
    );
    // The binding names approvers as the server does, never as a request says.
    for (const person of Object.values(PEOPLE)) {
      this.standin.setUsername(person.ids.mattermost, person.name.toLowerCase());
    }
  }

  agentRoute(): AgentRoute {
    return { workspaceId: this.standin.identity.teamId, channelId: CHANNEL };
  }

  async stop(): Promise<void> {
    await this.standin.stop();
  }

  bindingEnv(bindingUrl: string): Record<string, string> {
    return {
      MATTERMOST_URL: this.standin.apiUrl,
      MATTERMOST_TOKEN: this.standin.token,
      MATTERMOST_ACTION_SECRET: this.actionSecret,
      MATTERMOST_COMMAND_TOKEN: this.commandToken,
      MATTERMOST_PUBLIC_URL: bindingUrl,
    };
  }

  async say(bindingUrl: string, person: PersonKey, text: string): Promise<number> {
    const { ids, name } = PEOPLE[person];
    // An answer word is a reply in the thread, reported by the outgoing webhook (a slash
    // command cannot answer); anything else is `/ask`. Either is shown in the thread, and the
    // first message roots it.
    const typedAnswer = readAnswerWord(text) !== undefined;
    const message = typedAnswer ? `${TRIGGER_WORD} ${text}` : `/ask ${text}`;
    const posted = this.standin.addUserPost({
      channel_id: CHANNEL,
      user_id: ids.mattermost,
      message,
      ...(this.rootId ? { root_id: this.rootId } : {}),
    });
    this.rootId ??= posted;
    const common = {
      token: this.commandToken,
      teamId: this.standin.identity.teamId,
      channelId: CHANNEL,
      userId: ids.mattermost,
      userName: name.toLowerCase(),
      text,
      rootId: this.rootId,
    };
    const form = typedAnswer
      ? outgoingWebhookBody({ ...common, postId: posted, triggerWord: TRIGGER_WORD })
      : slashCommandBody(common);
    const response = await fetch(`${bindingUrl}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    // The command's reply text: Mattermost shows an ephemeral one to its sender alone.
    const reply = (await response.json().catch(() => ({}))) as { text?: unknown };
    if (response.status === 200 && typeof reply.text === 'string' && reply.text !== '') {
      this.standin.addEphemeral({
        user_id: ids.mattermost,
        channel_id: CHANNEL,
        root_id: this.rootId,
        message: reply.text,
      });
    }
    return response.status;
  }

  async click(_bindingUrl: string, person: PersonKey, ref: string): Promise<number> {
    const { postId, actionId } = refSchema.parse(JSON.parse(ref));
    const post = this.standin.post(postId);
    const integration = post
      ? actionsOf(post).find((a) => a.id === actionId)?.integration
      : undefined;
    if (!post || !integration?.url || !integration.context) return 404;
    const { ids, name } = PEOPLE[person];
    const response = await fetch(integration.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(
        actionCallbackBody({
          userId: ids.mattermost,
          userName: name.toLowerCase(),
          channelId: post.channel_id,
          postId,
          context: integration.context,
          // Good for one actions/dialogs/open within 3 s: "Edit & approve" opens its dialog.
          triggerId: this.standin.issueTriggerId(ids.mattermost, post.channel_id),
        }),
      ),
    });
    if (response.status === 200) {
      const reply = (await response.json().catch(() => ({}))) as { ephemeral_text?: unknown };
      if (typeof reply.ephemeral_text === 'string' && reply.ephemeral_text !== '') {
        this.standin.addEphemeral({
          user_id: ids.mattermost,
          channel_id: post.channel_id,
          root_id: post.root_id || post.id,
          message: reply.ephemeral_text,
        });
      }
    }
    return response.status;
  }

  async submitForm(
    _bindingUrl: string,
    person: PersonKey,
    formId: string,
    values: Readonly<Record<string, string>>,
  ): Promise<number> {
    const dialog = this.openDialog(person, formId);
    if (!dialog) return 404;
    // As the server does: the submission goes to the URL the integration opened the dialog with.
    const response = await fetch(dialog.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(
        dialogSubmissionBody({
          dialog,
          userId: PEOPLE[person].ids.mattermost,
          teamId: this.standin.identity.teamId,
          values,
        }),
      ),
    });
    // `{}` closes the dialog; `error` (or `errors` by field) keeps it open with the reason.
    if (response.status === 200) {
      this.forms.answered(formId, await response.json().catch(() => undefined));
    }
    return response.status;
  }

  closeForm(person: PersonKey, formId: string): boolean {
    if (!this.openDialog(person, formId)) return false;
    this.forms.end(formId);
    return true;
  }

  /** Dialogs have no id a client sees; the stand-in's log position names one here. */
  private openDialogs(person: PersonKey): { id: string; dialog: FakeMattermostDialog }[] {
    return this.standin.dialogs
      .map((dialog, index) => ({ id: `dialog-${index}`, dialog }))
      .filter(
        ({ id, dialog }) =>
          dialog.userId === PEOPLE[person].ids.mattermost && this.forms.isOpen(id),
      );
  }

  private openDialog(person: PersonKey, id: string): FakeMattermostDialog | undefined {
    return this.openDialogs(person).find((d) => d.id === id)?.dialog;
  }

  private formFor(person: PersonKey): PanelForm | undefined {
    const open = this.openDialogs(person).at(-1);
    if (!open) return undefined;
    const error = this.forms.errorOf(open.id);
    return {
      id: open.id,
      title: open.dialog.title,
      submitLabel: 'Submit',
      fields: open.dialog.elements.map((e) => ({
        name: e.name,
        label: e.displayName,
        value: e.default ?? '',
        ...(e.helpText === undefined ? {} : { hint: e.helpText }),
        multiline: e.type === 'textarea',
      })),
      ...(error === undefined ? {} : { error }),
    };
  }

  view(viewer: PersonKey): PanelView {
    const messages: PanelMessage[] = this.standin.posts
      .filter((p) => p.channel_id === CHANNEL)
      .map((p) => this.message(p));
    for (const [index, notice] of this.standin.ephemerals.entries()) {
      const person = personById('mattermost', notice.user_id);
      if (notice.channel_id !== CHANNEL || person?.key !== viewer) continue;
      messages.push({
        id: `ephemeral-${index}`,
        author: 'Tollgate',
        fromBot: true,
        at: notice.at.getTime(),
        parts: [{ kind: 'text', text: notice.message }],
        buttons: [],
        edits: 0,
        privateTo: person.key,
      });
    }
    const form = this.formFor(viewer);
    return {
      platform: 'mattermost',
      real: false,
      messages: messages.sort((a, b) => a.at - b.at),
      ...(form ? { form } : {}),
    };
  }

  fingerprint(): string {
    const edits = this.standin.posts.reduce((sum, p) => sum + p.edits, 0);
    return `${this.standin.posts.length}/${edits}/${this.standin.ephemerals.length}/${this.standin.dialogs.length}/${this.forms.signature()}`;
  }

  snapshot(): MattermostSandboxState {
    return {
      standin: this.standin.snapshot(),
      rootId: this.rootId,
      actionSecret: this.actionSecret,
    };
  }

  restore(snapshot: unknown): void {
    const state = snapshot as MattermostSandboxState;
    this.standin.restore(state.standin);
    this.rootId = state.rootId;
    this.actionSecret = state.actionSecret;
  }

  private message(post: FakeMattermostPost): PanelMessage {
    const fromBot = post.user_id === this.standin.identity.botUserId;
    const attachments = post.props.attachments ?? [];
    const parts: PanelPart[] = post.message ? [{ kind: 'text', text: post.message }] : [];
    for (const attachment of attachments) {
      const text = ['pretext', 'title', 'text']
        .map((key) => attachment[key])
        .filter((t): t is string => typeof t === 'string' && t !== '')
        .join('\n');
      if (text) parts.push({ kind: 'attachment', text, color: attachment.color });
    }
    return {
      id: post.id,
      author: fromBot ? 'tollgate' : (personById('mattermost', post.user_id)?.name ?? post.user_id),
      fromBot,
      at: post.create_at,
      parts,
      buttons: actionsOf(post).map((a) => ({
        label: a.name ?? '',
        style: a.style === 'primary' || a.style === 'danger' ? a.style : 'default',
        disabled: false,
        ref: JSON.stringify({ postId: post.id, actionId: a.id ?? '' }),
      })),
      edits: post.edits,
    };
  }
}

function actionsOf(post: { props: FakeMattermostPost['props'] }): PostAction[] {
  return (post.props.attachments ?? []).flatMap((a) => a.actions ?? []);
}
