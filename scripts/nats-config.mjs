// Writes the nats-server authorization for one Tollgate deployment: a user per service and an
// `operator`, each allowed exactly its role (libs/messaging/src/nats-permissions.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const HELP = `Usage: npm run nats:config -- [--prefix <prefix>] [--roles <list>] [--cluster]
                             [--monitor <host:port>] [--out <path>] [--passwords]

Writes a nats-server configuration with one user per Tollgate service deployed and an
operator user, each allowed exactly its role's subjects and JetStream API calls; anonymous
connections are refused.

  --prefix <prefix>     TOLLGATE_SUBJECT_PREFIX the services use (default: tollgate)
  --roles <list>        the services deployed, comma-separated (default: all of them); the
                        operator is always included. A service left out has no user at all.
  --cluster             add the cluster block: routes authenticate as user \`route\` with
                        NATS_PASSWORD_ROUTE; listen address NATS_CLUSTER_LISTEN and routes
                        NATS_ROUTES (nats/start-nats.sh builds them from NATS_ROUTE_HOSTS)
  --monitor <host:port> serve /healthz and the monitoring pages there (e.g. 127.0.0.1:8222)
  --out <path>          where to write it (default: nats/nats-server.conf; - for stdout)
  --passwords           print fresh random passwords as .env lines instead, and write nothing

If the environment of this command holds any of the password variables the configuration
references, each one must be of the safe shape below: an empty or weak one is refused
(exit 2) and nothing is written. nats/start-nats.sh, which Compose starts nats-server
through, refuses the same at every start.

Passwords are never written to the configuration. It references them as nats-server
environment variables (NATS_PASSWORD_SESSION_SERVICE, NATS_PASSWORD_SLACK_BINDING,
NATS_PASSWORD_DISCORD_BINDING, NATS_PASSWORD_MATTERMOST_BINDING, NATS_PASSWORD_APPROVAL_API,
NATS_PASSWORD_OPERATOR),
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
      roles: { type: 'string' },
      cluster: { type: 'boolean', default: false },
      monitor: { type: 'string' },
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

const options = { cluster: args.cluster };
if (args.roles !== undefined) {
  const roles = args.roles.split(',').map((role) => role.trim());
  const unknown = roles.filter((role) => !messaging.NATS_ROLES.includes(role));
  if (unknown.length > 0 || roles.length === 0 || roles.includes('')) {
    console.error(
      `nats:config: --roles takes a comma-separated list of ${messaging.NATS_ROLES.join(', ')}` +
        (unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''),
    );
    process.exit(2);
  }
  options.roles = roles;
}
if (args.monitor !== undefined) {
  if (!/^[A-Za-z0-9.-]+:[0-9]{1,5}$/.test(args.monitor)) {
    console.error('nats:config: --monitor takes host:port, e.g. 127.0.0.1:8222');
    process.exit(2);
  }
  options.monitor = args.monitor;
}

if (args.passwords) {
  for (const variable of messaging.referencedPasswordVariables(options)) {
    console.log(`${variable}=${messaging.randomNatsPassword()}`);
  }
  process.exit(0);
}

// Checked only when this environment holds them (`set -a; . ./.env; npm run nats:config`):
// rendering is also done where no password lives, and nats/start-nats.sh checks at start.
const referenced = messaging.referencedPasswordVariables(options);
if (referenced.some((variable) => variable in process.env)) {
  const problems = messaging.natsPasswordProblems(process.env, options);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`nats:config: ${problem}`);
    console.error('nats:config: refused, nothing written; `--passwords` prints safe values');
    process.exit(2);
  }
}

const text = messaging.renderNatsServerConfig(prefix.value, options);
if (args.out === '-') {
  process.stdout.write(text);
} else {
  const path = resolve(args.out);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.error(`nats:config: wrote ${path} for prefix ${prefix.value}`);
}
