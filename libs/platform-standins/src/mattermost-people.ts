import { type Answer, error, ok } from './mattermost-api.answers';
import type { MATTERMOST_FAKE_DEFAULTS } from './mattermost-api.types';

/**
 * Who exists on the fake Mattermost server: channel members, usernames and groups, and the
 * routes that answer about them (`getChannelMember`, `getUser`, `getProfilesInGroup`). Apart
 * from the posts because the binding asks it different questions (may this person click?
 * who is this?) and tests set it up on its own; `MattermostApiFake` delegates here.
 */

export class MattermostPeople {
  /** Channel id → the ids of its members. */
  private memberships = new Map<string, Set<string>>();
  /** User id → username, for people given one; any other member's username is their id. */
  private usernames = new Map<string, string>();
  /** G1: groups and their members, for `getProfilesInGroup`. */
  private readonly groups = new Map<string, string[]>();

  constructor(private readonly config: typeof MATTERMOST_FAKE_DEFAULTS) {}

  /** Forgets members and usernames; groups stay, as `MattermostApiFake.reset` always left them. */
  reset(): void {
    this.memberships = new Map();
    this.usernames = new Map();
  }

  /** The memberships, uncopied: `MattermostApiFake.snapshot` clones them. */
  state(): Map<string, Set<string>> {
    return this.memberships;
  }

  /** Takes over `memberships` (already a copy). */
  restore(memberships: Map<string, Set<string>>): void {
    this.memberships = memberships;
  }

  addChannelMembers(channelId: string, userIds: readonly string[]): void {
    const members = this.memberships.get(channelId) ?? new Set<string>();
    for (const userId of userIds) members.add(userId);
    this.memberships.set(channelId, members);
  }

  setUsername(userId: string, username: string): void {
    this.usernames.set(userId, username);
  }

  removeChannelMember(channelId: string, userId: string): void {
    this.memberships.get(channelId)?.delete(userId);
  }

  isChannelMember(channelId: string, userId: string): boolean {
    return this.memberships.get(channelId)?.has(userId) ?? false;
  }

  setGroup(groupId: string, userIds: readonly string[]): void {
    this.groups.set(groupId, [...userIds]);
  }

  /**
   * As the server answers it for a bot allowed to read the channel: the membership, or 404
   * when the user is no member (or no user at all).
   */
  channelMember(channelId: string, userId: string): Answer {
    if (!this.isChannelMember(channelId, userId)) {
      return error(
        404,
        'app.channel.get_member.missing.app_error',
        'No channel member found for that user ID and channel ID.',
      );
    }
    return ok(200, {
      channel_id: channelId,
      user_id: userId,
      roles: 'channel_user',
      last_viewed_at: 0,
      msg_count: 0,
      mention_count: 0,
      mention_count_root: 0,
      msg_count_root: 0,
      urgent_mention_count: 0,
      notify_props: {},
      last_update_at: 0,
      scheme_guest: false,
      scheme_user: true,
      scheme_admin: false,
    });
  }

  groupMembers(query: URLSearchParams): Answer {
    const members = this.groups.get(query.get('in_group') ?? '');
    if (members === undefined) return error(404, 'app.group.no_rows', 'Unable to find the group.');
    const page = Number(query.get('page') ?? '0');
    const perPage = Math.min(Number(query.get('per_page') ?? '60'), 200);
    return ok(
      200,
      members.slice(page * perPage, (page + 1) * perPage).map((id) => ({
        id,
        username: this.usernames.get(id) ?? id,
        delete_at: 0,
        is_bot: false,
      })),
    );
  }

  /**
   * A person as the server shows them to a bot: anyone with a username, or a member of some
   * channel (the bot itself too); 404 for anyone else, as the server answers an unknown id.
   */
  user(userId: string): Answer {
    const known =
      userId === this.config.botUserId ||
      this.usernames.has(userId) ||
      [...this.memberships.values()].some((members) => members.has(userId));
    if (!known) return error(404, 'app.user.missing_account.const', 'Unable to find the user.');
    const username =
      userId === this.config.botUserId
        ? this.config.botUsername
        : (this.usernames.get(userId) ?? userId);
    return ok(200, {
      id: userId,
      username,
      delete_at: 0,
      is_bot: userId === this.config.botUserId,
    });
  }
}
