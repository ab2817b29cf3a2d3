// Creates the streams and every service's durable consumer, as the services do at start,
// for operators who provision before a deploy. Settings that differ are reported, not changed.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');
const { connectNats, provision } = require(join(dist, 'libs/messaging/index.js'));
const { createLogger } = require(join(dist, 'libs/service-runtime/index.js'));
const protocol = require(join(dist, 'libs/protocol/index.js'));
const { jetstreamManager } = require('@nats-io/jetstream');

const logger = createLogger('provision', process.env.LOG_LEVEL ?? 'info');
const prefixResult = protocol.parseSubjectPrefix(process.env.TOLLGATE_SUBJECT_PREFIX);
if (!prefixResult.ok) {
  console.error(`provision: TOLLGATE_SUBJECT_PREFIX ${prefixResult.detail}`);
  process.exit(1);
}
const prefix = prefixResult.value;
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
const connection = await connectNats({ servers, name: 'tollgate-provision', logger });
try {
  const report = await provision(await jetstreamManager(connection.nc), plan, logger);
  logger.info(report, 'provisioned');
  if (report.differing.length > 0) process.exitCode = 2;
} finally {
  await connection.close();
}
