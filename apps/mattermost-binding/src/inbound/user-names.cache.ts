/** A Mattermost user's username, asked of the server; undefined for a user it does not know. */
export type UserNameLookup = (userId: string) => Promise<string | undefined>;

export interface UserNamesOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly now?: () => number;
}

/**
 * Approvers' names as the server has them, never as a request says (`user_name` is unsigned).
 * A name authorizes nothing, so it may be remembered for a while: a burst of answers costs one
 * lookup per person. Failures are not kept.
 */
export class UserNames {
  private readonly names = new Map<string, { name: string | undefined; until: number }>();
  private readonly now: () => number;

  constructor(
    private readonly lookup: UserNameLookup,
    private readonly options: UserNamesOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async nameOf(userId: string): Promise<string | undefined> {
    const known = this.names.get(userId);
    if (known !== undefined && known.until > this.now()) return known.name;
    this.names.delete(userId);
    const name = await this.lookup(userId);
    while (this.names.size >= this.options.maxEntries) {
      const oldest = this.names.keys().next();
      if (oldest.done) break;
      this.names.delete(oldest.value);
    }
    this.names.set(userId, { name, until: this.now() + this.options.ttlMs });
    return name;
  }
}
