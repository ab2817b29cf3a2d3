import { randomBytes } from 'node:crypto';
import {
  actionsOf,
  appMentionEvent,
  blockActionsPayload,
  blocksOf,
  eventCallback,
  type FakeSlackMessage,
  type FakeSlackView,
  interactionFormBody,
  signSlackRequest,
  SlackApiFake,
  type SlackApiFakeSnapshot,
  type SlackBlock,
  viewSubmissionPayload,
} from '@tollgate/platform-standins';
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

const CHANNEL = 'C0SANDBOX';
const refSchema = z.strictObject({ ts: z.string().max(64), actionId: z.string().max(255) });

interface SlackSandboxState {
  readonly standin: SlackApiFakeSnapshot;
  readonly threadTs: string | undefined;
}

/**
 * Slack in the sandbox: one channel, one thread started by the first message. A message is an
 * `app_mention` event and a click a `block_actions` interaction, both signed with the signing
 * secret (v0 HMAC), POSTed to /slack/events and /slack/interactions as Slack does.
 */
export class SlackSandboxPlatform implements SandboxPlatform {
  readonly platform = 'slack' as const;
  private readonly standin = new SlackApiFake();
  private readonly signingSecret = randomBytes(24).toString('hex');
  private threadTs: string | undefined;
  private eventCount = 0;
  private readonly forms = new FormOutcomes();

  async start(): Promise<void> {
    await this.standin.start();
  }

  agentRoute(): AgentRoute {
    return { workspaceId: this.standin.identity.teamId, channelId: CHANNEL };
  }

  async stop(): Promise<void> {
    await this.standin.stop();
  }

  bindingEnv(): Record<string, string> {
    return {
      SLACK_BOT_TOKEN: this.standin.botToken,
      SLACK_SIGNING_SECRET: this.signingSecret,
      SLACK_API_URL: this.standin.apiUrl,
    };
  }

  async say(bindingUrl: string, person: PersonKey, text: string): Promise<number> {
    const { teamId, botUserId } = this.standin.identity;
    const userId = PEOPLE[person].ids.slack;
    const mention = `<@${botUserId}> ${text}`;
    const ts = this.standin.addUserMessage({
      channel: CHANNEL,
      user: userId,
      text: mention,
      ...(this.threadTs ? { thread_ts: this.threadTs } : {}),
    });
    const event = appMentionEvent({
      channelId: CHANNEL,
      userId,
      text: mention,
      ts,
      ...(this.threadTs ? { threadTs: this.threadTs } : {}),
      teamId,
    });
    this.threadTs ??= ts;
    this.eventCount += 1;
    const body = JSON.stringify(
      eventCallback({ teamId, event, eventId: `EvSANDBOX${Date.now()}${this.eventCount}` }),
    );
    return this.post(`${bindingUrl}/slack/events`, 'application/json', body);
  }

  async click(bindingUrl: string, person: PersonKey, ref: string): Promise<number> {
    const { ts, actionId } = refSchema.parse(JSON.parse(ref));
    const message = this.standin.message(CHANNEL, ts);
    const button = actionsOf(message).find((b) => b.action_id === actionId);
    if (!message || !button) return 404;
    const body = interactionFormBody(
      blockActionsPayload({
        teamId: this.standin.identity.teamId,
        channelId: CHANNEL,
        messageTs: ts,
        ...(message.thread_ts ? { threadTs: message.thread_ts } : {}),
        userId: PEOPLE[person].ids.slack,
        userName: PEOPLE[person].name,
        actionId,
        value: button.value ?? '',
        actionTs: `${Math.floor(Date.now() / 1000)}.${String(Date.now() % 1000).padStart(6, '0')}`,
        // Good for one views.open within 3 s: "Edit & approve" opens its modal with it.
        triggerId: this.standin.issueTriggerId(PEOPLE[person].ids.slack),
        buttonText: button.text,
        ...(button.style ? { style: button.style } : {}),
        ...(button.block_id ? { blockId: button.block_id } : {}),
        messageText: message.text,
        blocks: blocksOf(message),
        responseUrl: this.standin.responseUrlFor({
          channel: CHANNEL,
          user: PEOPLE[person].ids.slack,
          ...(message.thread_ts ? { threadTs: message.thread_ts } : {}),
        }),
      }),
    );
    return this.post(`${bindingUrl}/slack/interactions`, 'application/x-www-form-urlencoded', body);
  }

  async submitForm(
    bindingUrl: string,
    person: PersonKey,
    formId: string,
    values: Readonly<Record<string, string>>,
  ): Promise<number> {
    const view = this.openView(person, formId);
    if (!view) return 404;
    const body = interactionFormBody(
      viewSubmissionPayload({
        teamId: this.standin.identity.teamId,
        userId: PEOPLE[person].ids.slack,
        userName: PEOPLE[person].name,
        view,
        values,
      }),
    );
    const signed = signSlackRequest(this.signingSecret, body, Math.floor(Date.now() / 1000));
    const response = await fetch(`${bindingUrl}/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed },
      body,
    });
    // An empty 200 closes the modal; `response_action: errors` keeps it open with the reason.
    const text = await response.text();
    if (response.status === 200) this.forms.answered(formId, text === '' ? undefined : parse(text));
    return response.status;
  }

  closeForm(person: PersonKey, formId: string): boolean {
    if (!this.openView(person, formId)) return false;
    this.forms.end(formId);
    return true;
  }

  view(viewer: PersonKey): PanelView {
    const messages: PanelMessage[] = this.standin.messages
      .filter((m) => m.channel === CHANNEL)
      .map((m) => this.message(m));
    for (const [index, notice] of this.standin.ephemerals.entries()) {
      const person = personById('slack', notice.user);
      if (notice.channel !== CHANNEL || person?.key !== viewer) continue;
      messages.push({
        id: `ephemeral-${index}`,
        author: 'Tollgate',
        fromBot: true,
        at: notice.at.getTime(),
        parts: notice.blocks ? blockParts(notice.blocks) : [{ kind: 'text', text: notice.text }],
        buttons: [],
        edits: 0,
        privateTo: person.key,
      });
    }
    const form = this.formFor(viewer);
    return {
      platform: 'slack',
      real: false,
      messages: messages.sort((a, b) => a.at - b.at),
      ...(form ? { form } : {}),
    };
  }

  fingerprint(): string {
    const edits = this.standin.messages.reduce((sum, m) => sum + m.edits, 0);
    return `${this.standin.messages.length}/${edits}/${this.standin.ephemerals.length}/${this.standin.views.length}/${this.forms.signature()}`;
  }

  /** The latest modal opened for `person` that is still open. */
  private formFor(person: PersonKey): PanelForm | undefined {
    const view = this.standin.views
      .filter((v) => v.user === PEOPLE[person].ids.slack && this.forms.isOpen(v.id))
      .at(-1);
    if (!view) return undefined;
    const submit = (view.view.submit as { text?: unknown } | undefined)?.text;
    const error = this.forms.errorOf(view.id);
    return {
      id: view.id,
      title: view.title,
      submitLabel: typeof submit === 'string' ? submit : 'Submit',
      fields: view.inputs.map((input) => ({
        name: input.blockId,
        label: input.label,
        value: input.initialValue ?? '',
        ...(input.hint === undefined ? {} : { hint: input.hint }),
        multiline: input.multiline,
      })),
      ...(error === undefined ? {} : { error }),
    };
  }

  private openView(person: PersonKey, id: string): FakeSlackView | undefined {
    return this.standin.views.find(
      (v) => v.id === id && v.user === PEOPLE[person].ids.slack && this.forms.isOpen(v.id),
    );
  }

  snapshot(): SlackSandboxState {
    return { standin: this.standin.snapshot(), threadTs: this.threadTs };
  }

  restore(snapshot: unknown): void {
    const state = snapshot as SlackSandboxState;
    this.standin.restore(state.standin);
    this.threadTs = state.threadTs;
  }

  private message(m: FakeSlackMessage): PanelMessage {
    const person = personById('slack', m.user);
    const blocks = blocksOf(m);
    return {
      id: m.ts,
      author: m.bot_id ? 'Tollgate' : (person?.name ?? m.user),
      fromBot: m.bot_id !== undefined,
      at: (m.history[0]?.at ?? m.at).getTime(),
      parts: blocks.length > 0 ? blockParts(blocks) : [{ kind: 'text', text: m.text }],
      buttons: actionsOf(m).map((b) => ({
        label: b.text,
        style: b.style ?? 'default',
        disabled: false,
        ref: JSON.stringify({ ts: m.ts, actionId: b.action_id }),
      })),
      edits: m.edits,
    };
  }

  private async post(url: string, contentType: string, body: string): Promise<number> {
    const signed = signSlackRequest(this.signingSecret, body, Math.floor(Date.now() / 1000));
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': contentType, ...signed },
      body,
    });
    return response.status;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Block Kit as Slack lays it out: headers and sections as text, context blocks small. */
function blockParts(blocks: readonly SlackBlock[]): PanelPart[] {
  const parts: PanelPart[] = [];
  const textOf = (value: unknown): string | undefined => {
    const text = (value as { text?: unknown } | undefined)?.text;
    return typeof text === 'string' && text !== '' ? text : undefined;
  };
  for (const block of blocks) {
    switch (block.type) {
      case 'header':
      case 'section': {
        const text = textOf(block.text);
        if (text) parts.push({ kind: 'text', text: block.type === 'header' ? `*${text}*` : text });
        if (Array.isArray(block.fields)) {
          for (const field of block.fields) {
            const fieldText = textOf(field);
            if (fieldText) parts.push({ kind: 'text', text: fieldText });
          }
        }
        break;
      }
      case 'context': {
        const elements = Array.isArray(block.elements) ? (block.elements as unknown[]) : [];
        const text = elements.map(textOf).filter(Boolean).join('  ');
        if (text) parts.push({ kind: 'context', text });
        break;
      }
      default:
        break;
    }
  }
  return parts;
}
