import { ConfigError } from './config-error';
import { loadConfig } from './base-config';

const valid = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig('slack-binding', env, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => p.variable);
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the docs/protocol.md §5 defaults for the service', () => {
    const config = loadConfig('slack-binding', valid, {});
    expect(config).toMatchObject({
      service: 'slack-binding',
      PORT: 3001,
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_SCHEMA: 'slack_binding',
      TOLLGATE_SUBJECT_PREFIX: 'tollgate',
      LOG_LEVEL: 'info',
      TOLLGATE_ACK_WAIT_MS: 30_000,
      TOLLGATE_DRAIN_MS: 10_000,
      TOLLGATE_RETRY_BASE_MS: 1_000,
    });
  });

  it('names DATABASE_URL when it is missing, empty or malformed', () => {
    expect(problemsOf({})).toEqual(['DATABASE_URL']);
    expect(problemsOf({ DATABASE_URL: '' })).toEqual(['DATABASE_URL']);
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })).toEqual(['DATABASE_URL']);
    expect(problemsOf({ DATABASE_URL: 'not a url' })).toEqual(['DATABASE_URL']);
  });

  it('reports every bad variable at once and never echoes a value', () => {
    const env = {
      DATABASE_URL: 'postgres://user:hunter2@db/x',
      PORT: 'eighty',
      TOLLGATE_SUBJECT_PREFIX: 'has.dot',
      LOG_LEVEL: 'loud',
    };
    try {
      loadConfig('session-service', env, {});
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain('PORT');
      expect(message).toContain('TOLLGATE_SUBJECT_PREFIX');
      expect(message).toContain('LOG_LEVEL');
      expect(message).not.toContain('hunter2');
    }
  });
});
