import { MAX_WEBHOOK_DELAY_MS, webhookRetryDelayMs } from './webhook-retry';
import { webhookSignature } from './webhook-signature';

describe('webhook retries and signatures', () => {
  it('doubles the delay after each failed attempt, up to an hour', () => {
    expect([1, 2, 3, 4].map((n) => webhookRetryDelayMs(n, 5_000))).toEqual([
      5_000, 10_000, 20_000, 40_000,
    ]);
    expect(webhookRetryDelayMs(20, 5_000)).toBe(MAX_WEBHOOK_DELAY_MS);
    expect(webhookRetryDelayMs(10_000, 5_000)).toBe(MAX_WEBHOOK_DELAY_MS);
  });

  it('keeps trying for the whole 24 hours: hourly once the delays reach an hour', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 86_400_000) {
      attempts += 1;
      elapsed += webhookRetryDelayMs(attempts, 5_000);
    }
    expect(attempts).toBeGreaterThan(24);
  });

  it('signs "<t>.<body>" with HMAC-SHA256 of the secret (a vector computed with openssl)', () => {
    expect(webhookSignature('secret', '{"a":1}', 1_700_000_000)).toBe(
      't=1700000000,v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686',
    );
  });
});
