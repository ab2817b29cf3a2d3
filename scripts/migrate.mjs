// Applies each service's migrations to its schema, as the services do at start, for
// operators who migrate before a deploy. Configured like the services: DATABASE_URL, and
// DATABASE_SCHEMA only when one service is named (`npm run migrate -- session-service`).
// Reaching PostgreSQL is bounded by TOLLGATE_MIGRATE_CONNECT_TIMEOUT_MS (default 15 s): a
// database that is down or never answers fails the run with a message, not a wait for ever.
// The migrations themselves are not bounded: a long one on a big table is no fault.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');
const { createDataSource, prepareSchemaAndMigrate, redactDatabaseUrl } = require(
  join(dist, 'libs/persistence/index.js'),
);
const { createLogger } = require(join(dist, 'libs/service-runtime/index.js'));

const ALL = [
  'session-service',
  'slack-binding',
  'discord-binding',
  'mattermost-binding',
  'approval-api',
];
const named = process.argv.slice(2);
const services = named.length > 0 ? named : ALL;
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('migrate: DATABASE_URL is required');
  process.exit(1);
}
const connectTimeoutMs = Number(process.env.TOLLGATE_MIGRATE_CONNECT_TIMEOUT_MS ?? 15_000);
if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 1_000 || connectTimeoutMs > 600_000) {
  console.error(
    'migrate: TOLLGATE_MIGRATE_CONNECT_TIMEOUT_MS must be an integer of 1000 to 600000',
  );
  process.exit(1);
}
for (const service of services) {
  if (!ALL.includes(service)) {
    console.error(`migrate: unknown service ${service}; one of ${ALL.join(', ')}`);
    process.exit(1);
  }
  const schema =
    named.length === 1 && process.env.DATABASE_SCHEMA
      ? process.env.DATABASE_SCHEMA
      : service.replace(/-/g, '_');
  const logger = createLogger('migrate', process.env.LOG_LEVEL ?? 'info').child({
    service,
    schema,
  });
  const { MIGRATIONS } = require(join(dist, 'apps', service, 'migrations.js'));
  const dataSource = createDataSource({
    url,
    schema,
    migrations: MIGRATIONS,
    applicationName: 'tollgate-migrate',
    connectTimeoutMs: Math.min(connectTimeoutMs, 10_000),
    logger,
  });
  try {
    await reach(dataSource, url);
    const applied = await prepareSchemaAndMigrate(dataSource, logger);
    logger.info({ applied }, applied.length > 0 ? 'migrated' : 'already up to date');
  } catch (error) {
    logger.error({ err: error, database: redactDatabaseUrl(url) }, 'migration failed');
    process.exitCode = 1;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

/**
 * Connects and asks one question within the deadline. pg's own connect timeout ends a
 * silent TCP handshake, but not a server that accepts and then never answers.
 */
async function reach(dataSource, databaseUrl) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
  });
  try {
    await Promise.race([
      dataSource.initialize().then(() => dataSource.query('SELECT 1')),
      deadline,
    ]);
  } catch (error) {
    console.error(
      `migrate: cannot reach PostgreSQL at ${redactDatabaseUrl(databaseUrl)}: ${error?.message ?? error}`,
    );
    // A connection still being attempted would hold the process open.
    process.exit(1);
  } finally {
    clearTimeout(timer);
  }
}
