import { MetricsAccess } from './metrics-access';

describe('MetricsAccess', () => {
  const token = 'metrics-token-of-enough-length';

  it('X17 without a token, serves only a direct connection from this host', () => {
    const open = new MetricsAccess(undefined);
    expect(open.refusal('127.0.0.1', {})).toBeUndefined();
    expect(open.refusal('::1', {})).toBeUndefined();
    expect(open.refusal('::ffff:127.0.0.1', {})).toBeUndefined();
    expect(open.refusal('172.18.0.1', {})).toBe('metrics_token_required');
    expect(open.refusal(undefined, {})).toBe('metrics_token_required');
    // A proxy on this host forwards outsiders from loopback; it says so, and is refused.
    expect(open.refusal('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).toBe(
      'metrics_token_required',
    );
    expect(open.refusal('127.0.0.1', { forwarded: 'for=203.0.113.9' })).toBe(
      'metrics_token_required',
    );
  });

  it('X17 with a token, serves only a scrape that carries it, from anywhere', () => {
    const guarded = new MetricsAccess(token);
    expect(guarded.refusal('172.18.0.1', { authorization: `Bearer ${token}` })).toBeUndefined();
    expect(guarded.refusal('127.0.0.1', {})).toBe('metrics_token_required');
    expect(guarded.refusal('127.0.0.1', { authorization: `Basic ${token}` })).toBe(
      'metrics_token_required',
    );
    expect(guarded.refusal('127.0.0.1', { authorization: `Bearer ${token}x` })).toBe(
      'bad_metrics_token',
    );
    expect(guarded.refusal('127.0.0.1', { authorization: 'Bearer short' })).toBe(
      'bad_metrics_token',
    );
  });
});
