import type { DiscordApiFakeOptions, FakeApplicationCommand } from './discord-api.types';
import { commandProblem, invalidForm, snowflakeOrder, type Result } from './discord-api.readers';
import type { DiscordMessageStore } from './discord-message-store';

/**
 * The Discord stand-in's guild and application side: the guild's members with their roles
 * ("List Guild Members") and the registered application commands (bulk overwrite). Apart from
 * messages and interactions because nothing else reads this state and it is not part of a
 * snapshot; it takes its ids from the message store.
 */

export class DiscordGuildRoutes {
  /** G1: guild members and their roles, for "List Guild Members". */
  private readonly guildMembers = new Map<string, { roles: string[]; username: string }>();
  /** Registered commands by scope: '' for global, else the guild id. */
  private commandSets = new Map<string, FakeApplicationCommand[]>();

  constructor(
    private readonly config: Required<DiscordApiFakeOptions>,
    private readonly messages: DiscordMessageStore,
  ) {}

  /** Clears the registered commands; the guild members stay. */
  reset(): void {
    this.commandSets = new Map();
  }

  commands(guildId?: string): FakeApplicationCommand[] {
    return structuredClone(this.commandSets.get(guildId ?? '') ?? []);
  }

  /**
   * G1: a guild member with their roles, as "List Guild Members" returns them (reference:
   * discord.com/developers/docs/resources/guild#list-guild-members: `limit` 1–1000, `after` a
   * user id, members in user id order; the app needs the GUILD_MEMBERS intent).
   */
  setGuildMember(
    userId: string,
    roles: readonly string[],
    username = `user${userId.slice(-4)}`,
  ): void {
    this.guildMembers.set(userId, { roles: [...roles], username });
  }

  listGuildMembers(guildId: string, query: URLSearchParams): Result {
    if (guildId !== this.config.guildId) {
      return { status: 404, body: { message: 'Unknown Guild', code: 10004 } };
    }
    const limit = Number(query.get('limit') ?? '1');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return invalidForm('limit', 'int value should be less than or equal to 1000.');
    }
    const after = query.get('after') ?? '0';
    const members = [...this.guildMembers.entries()]
      .filter(([id]) => snowflakeOrder(id, after) > 0)
      .sort(([a], [b]) => snowflakeOrder(a, b))
      .slice(0, limit)
      .map(([id, m]) => ({
        user: { id, username: m.username, global_name: null, avatar: null },
        nick: null,
        roles: [...m.roles],
        joined_at: '2026-01-01T00:00:00.000000+00:00',
        deaf: false,
        mute: false,
        flags: 0,
      }));
    return { status: 200, body: members };
  }

  /**
   * Replaces the scope's commands with the list sent. Discord keeps a command's id when one
   * of the same name and type is overwritten, so a re-run changes nothing visible.
   */
  overwriteCommands(app: string, guild: string | undefined, list: unknown[] | undefined): Result {
    if (app !== this.config.applicationId) {
      return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    }
    if (list === undefined) return invalidForm('_root', 'Must be an array of commands');
    if (list.length > 100) return invalidForm('_root', 'Must be 100 or fewer in length.');
    const scope = guild ?? '';
    const before = this.commandSets.get(scope) ?? [];
    const commands: FakeApplicationCommand[] = [];
    for (const [index, raw] of list.entries()) {
      const problem = commandProblem(raw);
      if (problem) return invalidForm(String(index), problem);
      const command = raw as Omit<FakeApplicationCommand, 'id' | 'application_id' | 'version'>;
      const type = command.type ?? 1;
      const kept = before.find((c) => c.name === command.name && c.type === type);
      commands.push({
        ...structuredClone(command),
        type,
        id: kept?.id ?? this.messages.nextId(),
        application_id: app,
        ...(guild === undefined ? {} : { guild_id: guild }),
        version: this.messages.nextId(),
      });
    }
    this.commandSets.set(scope, commands);
    return { status: 200, body: commands };
  }
}
