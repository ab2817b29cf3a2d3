// Registers Tollgate's one Discord command, `/ask text:<message>`, for the application.
// Discord delivers a command to the interactions endpoint only once it is registered; the
// binding reads exactly this shape (apps/discord-binding/src/inbound/discord-interaction.rules.ts:
// command name `ask`, string option `text`).
//
// It overwrites the application's whole command list (PUT), so running it again is harmless
// and leaves no stale command behind. Global commands reach every server the bot is in, and
// direct messages; DISCORD_GUILD_ID registers them on one server only, where they appear at
// once, which suits trying it out.
import { parseArgs } from 'node:util';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';

const HELP = `Usage: npm run discord:register [-- --print]

Registers /ask text:<message> for the Discord application, replacing its command list.

  DISCORD_APPLICATION_ID  required, the application id (a snowflake)
  DISCORD_BOT_TOKEN       required, the bot token the binding uses
  DISCORD_GUILD_ID        optional: register on this server only (appears at once)
  DISCORD_API_URL         default https://discord.com/api (no trailing /)

  --print   print the command definition as JSON and register nothing`;

/** Slash command option type STRING; contexts GUILD and BOT_DM; install type GUILD_INSTALL. */
const STRING_OPTION = 3;
const CONTEXT_GUILD = 0;
const CONTEXT_BOT_DM = 1;
const GUILD_INSTALL = 0;

const ASK_COMMAND = {
  name: 'ask',
  type: 1,
  description: 'Send a message to the agent; tool calls it wants to run are shown for approval',
  options: [
    {
      type: STRING_OPTION,
      name: 'text',
      description: 'Your message to the agent',
      required: true,
    },
  ],
  integration_types: [GUILD_INSTALL],
  contexts: [CONTEXT_GUILD, CONTEXT_BOT_DM],
};

let args;
try {
  args = parseArgs({
    options: {
      print: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (error) {
  console.error(`discord:register: ${error.message}\n\n${HELP}`);
  process.exit(2);
}
if (args.help) {
  console.log(HELP);
  process.exit(0);
}
if (args.print) {
  console.log(JSON.stringify([ASK_COMMAND], null, 2));
  process.exit(0);
}

const env = (name) => (process.env[name] === '' ? undefined : process.env[name]);
const applicationId = env('DISCORD_APPLICATION_ID');
const botToken = env('DISCORD_BOT_TOKEN');
const guildId = env('DISCORD_GUILD_ID');
const apiUrl = env('DISCORD_API_URL') ?? 'https://discord.com/api';
const problems = [
  ...(applicationId === undefined ? ['DISCORD_APPLICATION_ID is required'] : []),
  ...(applicationId !== undefined && !/^\d+$/.test(applicationId)
    ? ['DISCORD_APPLICATION_ID must be a snowflake']
    : []),
  ...(botToken === undefined ? ['DISCORD_BOT_TOKEN is required'] : []),
  ...(guildId !== undefined && !/^\d+$/.test(guildId)
    ? ['DISCORD_GUILD_ID must be a snowflake']
    : []),
  ...(apiUrl.endsWith('/') ? ['DISCORD_API_URL must not end with "/"'] : []),
];
if (problems.length > 0) {
  for (const problem of problems) console.error(`discord:register: ${problem}`);
  process.exit(2);
}

// No retries: a person runs this and reads the answer.
const rest = new REST({ api: apiUrl, version: '10', retries: 0, timeout: 15_000 }).setToken(
  botToken,
);
const route =
  guildId === undefined
    ? Routes.applicationCommands(applicationId)
    : Routes.applicationGuildCommands(applicationId, guildId);
try {
  const registered = await rest.put(route, { body: [ASK_COMMAND] });
  const where = guildId === undefined ? 'globally' : `on server ${guildId}`;
  for (const command of registered) {
    console.log(`registered /${command.name} (id ${command.id}) ${where}`);
  }
} catch (error) {
  // The token is never printed: the client's errors name the route, not the header.
  const detail =
    error instanceof DiscordAPIError
      ? `Discord answered ${error.status} (code ${error.code}): ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  console.error(`discord:register: ${detail}`);
  process.exit(1);
}
