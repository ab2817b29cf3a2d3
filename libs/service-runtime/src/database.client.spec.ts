import pino from 'pino';
import { loadConfig, SERVICE_NAMES, type ServiceName } from './base-config';
import { ConfigError } from './config-error';
import { DatabaseClient, DEFAULT_POOL_SIZES } from './database.client';
import { ReadinessService } from './readiness.service';

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The pool a service would open; the data source is only built, never connected. */
function poolSizeOf(service: ServiceName, env: NodeJS.ProcessEnv = {}): unknown {
  const config = loadConfig(service, { DATABASE_URL, ...env }, {});
  const client = new DatabaseClient(config, pino({ level: 'silent' }), [], new ReadinessService());
  return (client.dataSource.options as { poolSize?: number }).poolSize;
}

describe('S18 — the database pool a service opens', () => {
  it('is the session-service small pool by default: its gate queues decisions, and each connection costs a cold backend', () => {
    expect(poolSizeOf('session-service')).toBe(12);
  });

  it.each(SERVICE_NAMES.filter((service) => service !== 'session-service'))(
    'is 40 for %s, which takes a connection per handler in flight',
    (service) => {
      expect(poolSizeOf(service)).toBe(40);
      expect(DEFAULT_POOL_SIZES[service]).toBe(40);
    },
  );

  it('follows DATABASE_POOL_SIZE when it is set', () => {
    expect(poolSizeOf('session-service', { DATABASE_POOL_SIZE: '24' })).toBe(24);
    expect(poolSizeOf('slack-binding', { DATABASE_POOL_SIZE: '8' })).toBe(8);
  });

  it.each(['1', '0', '-3', 'twelve', '1001', '12.5'])(
    'refuses DATABASE_POOL_SIZE=%s, naming the variable',
    (value) => {
      let problems: string[] = [];
      try {
        loadConfig('session-service', { DATABASE_URL, DATABASE_POOL_SIZE: value }, {});
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems = error.problems.map((problem) => problem.variable);
      }
      expect(problems).toEqual(['DATABASE_POOL_SIZE']);
    },
  );
});
