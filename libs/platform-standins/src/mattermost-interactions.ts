import { type Answer, error, newId, ok } from './mattermost-api.answers';
import { str } from './mattermost-api.requests';
import type { MattermostEphemeral } from './mattermost-api.types';
import { type FakeMattermostDialog, MattermostDialogsFake } from './mattermost-dialogs.fake';

/**
 * What a person gets back for themselves alone when they use a post's buttons: ephemeral posts
 * (sent with `POST /posts/ephemeral`, or made from an action callback's `ephemeral_text`) and
 * interactive dialogs opened with the action's trigger_id. Apart from the stored posts because
 * none of it is a post anyone else sees; `MattermostApiFake` delegates here.
 */

export class MattermostInteractions {
  private ephemeralLog: MattermostEphemeral[] = [];
  /** G2: trigger_ids handed out with action callbacks, and the dialogs opened with them. */
  private readonly dialogFake = new MattermostDialogsFake();

  constructor(private readonly botUserId: string) {}

  /** Forgets the ephemeral posts; trigger_ids and dialogs stay, as the fake's reset() left them. */
  reset(): void {
    this.ephemeralLog = [];
  }

  /** The ephemeral posts, uncopied: `MattermostApiFake.snapshot` clones them. */
  state(): MattermostEphemeral[] {
    return this.ephemeralLog;
  }

  /** Takes over `ephemerals` (already a copy). */
  restore(ephemerals: MattermostEphemeral[]): void {
    this.ephemeralLog = ephemerals;
  }

  issueTriggerId(userId: string, channelId: string): string {
    return this.dialogFake.issueTrigger(userId, channelId);
  }

  get dialogs(): FakeMattermostDialog[] {
    return this.dialogFake.dialogs;
  }

  openDialog(record: Record<string, unknown>): Answer {
    const opened = this.dialogFake.open(record);
    return opened.ok
      ? ok(200, { status: 'OK' })
      : error(opened.status, 'api.action.open_dialog.app_error', opened.message);
  }

  addEphemeral(entry: Omit<MattermostEphemeral, 'at'>): void {
    this.ephemeralLog.push({ ...entry, at: new Date() });
  }

  get ephemerals(): MattermostEphemeral[] {
    return structuredClone(this.ephemeralLog);
  }

  ephemeral(body: Record<string, unknown>): Answer {
    const user = str(body.user_id);
    const post = (body.post ?? {}) as Record<string, unknown>;
    const channel = str(post.channel_id);
    if (!user || !channel) {
      return error(400, 'api.context.invalid_body_param.app_error', 'user_id or post');
    }
    const entry: MattermostEphemeral = {
      user_id: user,
      channel_id: channel,
      root_id: str(post.root_id) ?? '',
      message: str(post.message) ?? '',
      at: new Date(),
    };
    this.ephemeralLog.push(entry);
    const now = entry.at.getTime();
    return ok(201, {
      id: newId(),
      channel_id: channel,
      root_id: entry.root_id,
      user_id: this.botUserId,
      message: entry.message,
      type: 'system_ephemeral',
      create_at: now,
      update_at: now,
      props: {},
    });
  }
}
