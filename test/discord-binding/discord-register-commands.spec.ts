import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  classifyDiscordInteraction,
  InteractionType,
} from '../../apps/discord-binding/src/inbound/discord-interaction.rules';
import { DiscordApiFake } from '@tollgate/platform-standins';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'discord-register-commands.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the script as `npm run discord:register` would, with only the given environment. */
async function register(env: Record<string, string>): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npm run discord:register against the Discord fake', () => {
  const fake = new DiscordApiFake();
  let env: Record<string, string>;

  beforeAll(async () => {
    await fake.start();
    env = {
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_BOT_TOKEN: fake.botToken,
    };
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.stop();
  });

  it('registers /ask globally, and an /ask built from what was registered is what the binding reads', async () => {
    const run = await register(env);
    expect(run).toMatchObject({ code: 0 });
    const [ask] = fake.commands();
    expect(fake.commands()).toHaveLength(1);
    expect(run.stdout).toContain(`registered /ask (id ${ask.id}) globally`);
    expect(fake.callsTo('overwriteCommands')).toMatchObject([
      { httpMethod: 'PUT', path: `/applications/${fake.applicationId}/commands` },
    ]);

    // Discord sends the command's name and each option's name and value, as registered.
    const option = ask.options?.find((o) => o.required === true);
    expect(option).toMatchObject({ type: 3 });
    const verdict = classifyDiscordInteraction({
      id: '1400000000000000001',
      type: InteractionType.command,
      token: 'interaction-token',
      guild_id: fake.guildId,
      channel_id: '1200000000000000777',
      member: { user: { id: '1500000000000000001', username: 'alice' } },
      data: {
        name: ask.name,
        options: [{ name: String(option?.name), type: 3, value: 'hello' }],
      },
    });
    expect(verdict).toMatchObject({ kind: 'ask', message: { text: 'hello' } });
  });

  it('with DISCORD_GUILD_ID registers on that server only, and a second run changes nothing', async () => {
    const guildEnv = { ...env, DISCORD_GUILD_ID: fake.guildId };
    const first = await register(guildEnv);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain(`on server ${fake.guildId}`);
    const [registered] = fake.commands(fake.guildId);
    expect(registered).toMatchObject({ name: 'ask', guild_id: fake.guildId });
    expect(fake.commands()).toEqual([]);

    expect(await register(guildEnv)).toMatchObject({ code: 0 });
    expect(fake.commands(fake.guildId)).toMatchObject([{ name: 'ask', id: registered.id }]);
  });

  it('refuses to run without its variables, and reports a refused token without printing it', async () => {
    const missing = await register({ DISCORD_API_URL: fake.apiUrl });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('DISCORD_APPLICATION_ID is required');
    expect(missing.stderr).toContain('DISCORD_BOT_TOKEN is required');
    expect(fake.calls).toEqual([]);

    const wrongToken = 'not-the-bot-token-0123456789';
    const refused = await register({ ...env, DISCORD_BOT_TOKEN: wrongToken });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Discord answered 401');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(wrongToken);
    expect(fake.commands()).toEqual([]);
  });
});
