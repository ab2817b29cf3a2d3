// Applies each service's migrations to its schema, as the services do at start, for
// operators who migrate before a deploy. Configured like the services: DATABASE_URL, and
// DATABASE_SCHEMA only when one service is named (`npm run migrate -- session-service`).
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(import.meta.dirname, '..', 'dist');
const { createDataSource, prepareSchemaAndMigrate, redactDatabaseUrl } = require(
  join(dist, 'libs/persistence/index.js'),
);
const { createLogger } = require(join(dist, 'libs/service-runtime/index.js'));

const ALL = ['session-service', 'slack-binding', 'discord-binding', 'mattermost-binding'];
const named = process.argv.slice(2);
const services = named.length > 0 ? named : ALL;
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('migrate: DATABASE_URL is required');
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
    logger,
  });
  try {
    await dataSource.initialize();
    const applied = await prepareSchemaAndMigrate(dataSource, logger);
    logger.info({ applied }, applied.length > 0 ? 'migrated' : 'already up to date');
  } catch (error) {
    logger.error({ err: error, database: redactDatabaseUrl(url) }, 'migration failed');
    process.exitCode = 1;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}
