/** Whether a Mattermost user is a member of a channel, asked of the server. */
export type MembershipLookup = (channelId: string, userId: string) => Promise<boolean>;

export interface ChannelMembershipOptions {
  /** How long an answer is believed (docs/protocol.md §5: "cached briefly"). */
  readonly ttlMs: number;
  /** Answers kept at most; the oldest go first. */
  readonly maxEntries: number;
  readonly now?: () => number;
}

/**
 * Channel membership with a short memory. A burst of clicks on one prompt (or a flood of
 * replays of one captured context) costs the Mattermost server one lookup per person and
 * channel, not one per click; a person removed from the channel can still answer for at most
 * `ttlMs`. Both answers are kept, so a flood naming non-members is bounded the same way;
 * failures are not kept, so the next click asks again.
 */
export class ChannelMembership {
  private readonly answers = new Map<string, { member: boolean; until: number }>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly now: () => number;

  constructor(
    private readonly lookup: MembershipLookup,
    private readonly options: ChannelMembershipOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async isMember(channelId: string, userId: string): Promise<boolean> {
    // Neither id may contain a newline (both are checked ids), so keys never collide.
    const key = `${channelId}\n${userId}`;
    const known = this.answers.get(key);
    if (known !== undefined && known.until > this.now()) return known.member;
    this.answers.delete(key);
    const asking = this.inFlight.get(key);
    if (asking !== undefined) return asking;
    const answer = this.lookup(channelId, userId).then((member) => {
      this.remember(key, member);
      return member;
    });
    this.inFlight.set(key, answer);
    try {
      return await answer;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private remember(key: string, member: boolean): void {
    while (this.answers.size >= this.options.maxEntries) {
      const oldest = this.answers.keys().next();
      if (oldest.done) break;
      this.answers.delete(oldest.value);
    }
    this.answers.set(key, { member, until: this.now() + this.options.ttlMs });
  }
}
