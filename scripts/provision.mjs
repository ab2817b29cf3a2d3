// Creates the streams and every service's durable consumer: the operator's job, before a
// deploy, since a service with NATS credentials may create nothing and is not ready until
// they exist as defined. Settings that differ (any field, compared whole) are reported, not
// changed, and make the run exit 2.
// Connects as NATS_USER + NATS_PASSWORD or NATS_CREDS when set (the `operator` user of
// `npm run nats:config` may create every stream and durable), anonymously otherwise.
// `--replicas N` creates the streams with N replicas (3 on a JetStream cluster).
// `--update max_ack_pending` also updates a durable whose only difference is that field (raised
// for the bindings' durables on 2026-12-01): it changes no message's fate, so taking the new
// figure in place is safe; each update is logged with the old and new value, and a durable that
// differs in any other field as well is still left whole and reported. The whole run
// is bounded by TOLLGATE_PROVISION_TIMEOUT_MS (default 15 s): a NATS that is down or never
// answers fails it with a message instead of a wait for ever.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');
const {
  connectNats,
  describeVerification,
  provision,
  roleInboxPrefix,
  UPDATABLE_CONSUMER_FIELDS,
} = require(join(dist, 'libs/messaging/index.js'));
const { createLogger, readNatsCredentials } = require(join(dist, 'libs/service-runtime/index.js'));
const protocol = require(join(dist, 'libs/protocol/index.js'));
const { jetstreamManager } = require('@nats-io/jetstream');

const logger = createLogger('provision', process.env.LOG_LEVEL ?? 'info');
const { replicas, update } = readArguments(process.argv.slice(2));
const timeoutMs = Number(process.env.TOLLGATE_PROVISION_TIMEOUT_MS ?? 15_000);
if (!Number.isInteger(timeoutMs) || timeoutMs < 1_000 || timeoutMs > 600_000) {
  console.error('provision: TOLLGATE_PROVISION_TIMEOUT_MS must be an integer of 1000 to 600000');
  process.exit(1);
}
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
const maxBytes = Number(process.env.TOLLGATE_STREAM_MAX_BYTES ?? protocol.DEFAULT_STREAM_MAX_BYTES);
let streams;
try {
  streams = protocol.streamDefinitions(prefix, { outMaxAgeDays, maxBytes });
} catch (error) {
  console.error(
    `provision: TOLLGATE_OUT_MAX_AGE_DAYS or TOLLGATE_STREAM_MAX_BYTES: ${error.message}`,
  );
  process.exit(1);
}
const plan = {
  streams: [streams.commands, streams.outputs, streams.deadLetters, streams.decisions].map(
    (stream) => ({
      ...stream,
      replicas,
    }),
  ),
  consumers: [
    protocol.sessionServiceConsumer(prefix, ackWaitMs),
    ...protocol.PLATFORMS.map((platform) => protocol.bindingConsumer(prefix, platform, ackWaitMs)),
    protocol.approvalApiConsumer(prefix, ackWaitMs),
  ],
};
const servers = (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',').map((s) => s.trim());
// Only the hosts: a URL may carry a user and password.
const where = servers.map((s) => s.replace(/\/\/[^@/]*@/, '//')).join(', ');
const watchdog = setTimeout(() => {
  console.error(
    `provision: NATS at ${where} did not answer within ${timeoutMs} ms (down, unreachable, or ` +
      'JetStream without a quorum); nothing more was provisioned',
  );
  process.exit(1);
}, timeoutMs);
watchdog.unref();
const connection = await connectNats({
  servers,
  name: 'tollgate-provision',
  logger,
  credentials: nats.credentials,
  inboxPrefix: roleInboxPrefix(prefix, 'operator'),
});
try {
  const report = await provision(await jetstreamManager(connection.nc), plan, logger, { update });
  logger.info(report, 'provisioned');
  for (const updated of report.updated) {
    const text = describeVerification({ missing: [], differing: [updated], usage: [] });
    console.error(`provision: ${text}; updated, as --update asked`);
  }
  if (report.differing.length > 0) {
    for (const differing of report.differing) {
      const text = describeVerification({ missing: [], differing: [differing], usage: [] });
      const updatable = differing.differences.every((d) =>
        UPDATABLE_CONSUMER_FIELDS.includes(d.field),
      );
      const hint = updatable
        ? ` (run again with --update ${differing.differences.map((d) => d.field).join(' --update ')} to take the defined value)`
        : '';
      console.error(
        `provision: ${text}; left unchanged, and no service using it becomes ready${hint}`,
      );
    }
    process.exitCode = 2;
  }
} catch (error) {
  console.error(`provision: failed against NATS at ${where}: ${error?.message ?? error}`);
  process.exitCode = 1;
} finally {
  await connection.close();
  clearTimeout(watchdog);
}

function readArguments(args) {
  let replicas = 1;
  const update = [];
  for (let i = 0; i < args.length; i += 1) {
    const [flag, inline] = args[i].split('=', 2);
    const value = inline ?? args[(i += 1)];
    if (flag === '--replicas') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 5) {
        console.error(`provision: --replicas must be 1 to 5 (JetStream's limit), got ${value}`);
        process.exit(1);
      }
      replicas = n;
    } else if (flag === '--update') {
      if (!UPDATABLE_CONSUMER_FIELDS.includes(value)) {
        console.error(
          `provision: --update takes ${UPDATABLE_CONSUMER_FIELDS.join(' or ')}, got ${value}; ` +
            'no other durable setting may be changed in place',
        );
        process.exit(1);
      }
      update.push(value);
    } else {
      console.error(
        `provision: unknown arguments ${args.join(' ')}; only --replicas N and --update max_ack_pending`,
      );
      process.exit(1);
    }
  }
  return { replicas, update };
}
