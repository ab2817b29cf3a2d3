// Writes the nats-server authorization for one Tollgate deployment: a user per service and an
// `operator`, each allowed exactly its role (libs/messaging/src/nats-permissions.ts).
import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const HELP = `Usage: npm run nats:config -- [--prefix <prefix>] [--out <path>] [--passwords]

Writes a nats-server configuration with one user per Tollgate service (session-service,
slack-binding, discord-binding, mattermost-binding) and an operator user, each allowed
exactly its role's subjects and JetStream API calls; anonymous connections are refused.

  --prefix <prefix>  TOLLGATE_SUBJECT_PREFIX the services use (default: tollgate)
  --out <path>       where to write it (default: nats/nats-server.conf; - for stdout)
  --passwords        print fresh random passwords as .env lines instead, and write nothing

Passwords are never written to the configuration. It references them as nats-server
environment variables (NATS_PASSWORD_SESSION_SERVICE, NATS_PASSWORD_SLACK_BINDING,
NATS_PASSWORD_DISCORD_BINDING, NATS_PASSWORD_MATTERMOST_BINDING, NATS_PASSWORD_OPERATOR),
so the file holds no secret and can be committed and mounted as is; the same values go to
each service as NATS_PASSWORD (docker-compose.yml wires both from .env). nats-server parses
a referenced value as configuration, so each password must match ^[A-Za-z][A-Za-z0-9]{23,127}$;
--passwords prints such values. Start nats-server with -c <path> and the variables set.

The operator user is for people and tools: npm run provision (all streams and durables),
npm run tollgate -- dlq (list, show and replay dead letters), and reading streams with the
nats CLI using --inbox-prefix _INBOX.<prefix>.operator. It publishes commands and outputs
only to replay dead letters, and no user can update, purge or delete a stream or consumer.`;

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');

let args;
try {
  args = parseArgs({
    options: {
      prefix: { type: 'string', default: 'tollgate' },
      out: { type: 'string', default: join('nats', 'nats-server.conf') },
      passwords: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (error) {
  console.error(`nats:config: ${error.message}\n\n${HELP}`);
  process.exit(2);
}
if (args.help) {
  console.log(HELP);
  process.exit(0);
}

const protocol = require(join(dist, 'libs/protocol/index.js'));
const messaging = require(join(dist, 'libs/messaging/index.js'));

const prefix = protocol.parseSubjectPrefix(args.prefix);
if (!prefix.ok) {
  console.error(`nats:config: --prefix ${prefix.detail}`);
  process.exit(2);
}

if (args.passwords) {
  for (const role of messaging.NATS_ROLES) {
    console.log(`${messaging.passwordVariable(role)}=${randomPassword()}`);
  }
  process.exit(0);
}

const text = messaging.renderNatsServerConfig(prefix.value);
if (args.out === '-') {
  process.stdout.write(text);
} else {
  const path = resolve(args.out);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.error(`nats:config: wrote ${path} for prefix ${prefix.value}`);
}

function randomPassword() {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const alphabet = `${letters}0123456789`;
  // 1 letter + 39 of 62 symbols: about 238 bits.
  let password = letters[randomInt(letters.length)];
  for (let i = 0; i < 39; i += 1) password += alphabet[randomInt(alphabet.length)];
  return password;
}
