import { loadSessionServiceConfig } from './session-service.config';

const BASE = {
  NATS_URL: 'nats://127.0.0.1:4222',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
};

describe('TOLLGATE_SESSION_GRANT_TTL (X14)', () => {
  it('X14 defaults to 24 hours and reads a duration with its unit', () => {
    expect(loadSessionServiceConfig(BASE).TOLLGATE_SESSION_GRANT_TTL).toBe(86_400_000);
    const ttl = (value: string) =>
      loadSessionServiceConfig({ ...BASE, TOLLGATE_SESSION_GRANT_TTL: value })
        .TOLLGATE_SESSION_GRANT_TTL;
    expect(ttl('90m')).toBe(5_400_000);
    expect(ttl('30s')).toBe(30_000);
    expect(ttl('7d')).toBe(604_800_000);
    expect(ttl('1500ms')).toBe(1_500);
  });

  it.each(['24', '1h30m', '-1h', '500ms', 'forever'])('X14 refuses %j', (value) => {
    expect(() => loadSessionServiceConfig({ ...BASE, TOLLGATE_SESSION_GRANT_TTL: value })).toThrow(
      /TOLLGATE_SESSION_GRANT_TTL/,
    );
  });
});

describe('MODEL_HISTORY_TURNS (S16)', () => {
  it('S16 shows the model its last 100 turns unless told otherwise', () => {
    expect(loadSessionServiceConfig(BASE).MODEL_HISTORY_TURNS).toBe(100);
    // Empty is unset, as for every variable (`FOO=` in a compose file).
    expect(loadSessionServiceConfig({ ...BASE, MODEL_HISTORY_TURNS: '' }).MODEL_HISTORY_TURNS).toBe(
      100,
    );
    expect(
      loadSessionServiceConfig({ ...BASE, MODEL_HISTORY_TURNS: '12' }).MODEL_HISTORY_TURNS,
    ).toBe(12);
  });

  it.each(['0', '-3', '2.5', 'all'])('S16 refuses %j', (value) => {
    expect(() => loadSessionServiceConfig({ ...BASE, MODEL_HISTORY_TURNS: value })).toThrow(
      /MODEL_HISTORY_TURNS/,
    );
  });
});
