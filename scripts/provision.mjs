// Creates the streams and every service's durable consumer, as the services do at start,
// for operators who provision before a deploy. Settings that differ are reported, not changed.
// Connects as NATS_USER + NATS_PASSWORD or NATS_CREDS when set (the `operator` user of
// `npm run nats:config` may create every stream and durable), anonymously otherwise.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');
const { connectNats, provision, roleInboxPrefix } = require(join(dist, 'libs/messaging/index.js'));
const { createLogger, readNatsCredentials } = require(join(dist, 'libs/service-runtime/index.js'));
const protocol = require(join(dist, 'libs/protocol/index.js'));
const { jetstreamManager } = require('@nats-io/jetstream');

const logger = createLogger('provision', process.env.LOG_LEVEL ?? 'info');
const prefixResult = protocol.parseSubjectPrefix(process.env.TOLLGATE_SUBJECT_PREFIX);
if (!prefixResult.ok) {
  console.error(`provision: TOLLGATE_SUBJECT_PREFIX ${prefixResult.detail}`);
  process.exit(1);
}
const prefix = prefixResult.value;
const nats = readNatsCredentials(process.env);
if (!nats.ok) {
  for (const { variable, problem } of nats.problems)
    console.error(`provision: ${variable} ${problem}`);
  process.exit(1);
}
const ackWaitMs = Number(process.env.TOLLGATE_ACK_WAIT_MS ?? 30_000);
const outMaxAgeDays = Number(process.env.TOLLGATE_OUT_MAX_AGE_DAYS ?? 14);
const streams = protocol.streamDefinitions(prefix, { outMaxAgeDays });
const plan = {
  streams: [streams.commands, streams.outputs, streams.deadLetters],
  consumers: [
    protocol.sessionServiceConsumer(prefix, ackWaitMs),
    ...protocol.PLATFORMS.map((platform) => protocol.bindingConsumer(prefix, platform, ackWaitMs)),
  ],
};
const servers = (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',').map((s) => s.trim());
const connection = await connectNats({
  servers,
  name: 'tollgate-provision',
  logger,
  credentials: nats.credentials,
  inboxPrefix: roleInboxPrefix(prefix, 'operator'),
});
try {
  const report = await provision(await jetstreamManager(connection.nc), plan, logger);
  logger.info(report, 'provisioned');
  if (report.differing.length > 0) process.exitCode = 2;
} finally {
  await connection.close();
}
