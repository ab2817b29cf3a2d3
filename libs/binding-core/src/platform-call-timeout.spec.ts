import { platformCallTimeoutMs } from './platform-call-timeout';

describe('platformCallTimeoutMs', () => {
  it('keeps a call well inside ack_wait and the drain deadline', () => {
    expect(platformCallTimeoutMs({ requestedMs: 10_000, ackWaitMs: 30_000, drainMs: 10_000 })).toBe(
      5_000,
    );
    expect(platformCallTimeoutMs({ requestedMs: 10_000, ackWaitMs: 6_000, drainMs: 60_000 })).toBe(
      2_000,
    );
    expect(platformCallTimeoutMs({ requestedMs: 800, ackWaitMs: 30_000, drainMs: 10_000 })).toBe(
      800,
    );
  });

  it('ignores a zero drain and never goes below a quarter second', () => {
    expect(platformCallTimeoutMs({ requestedMs: 10_000, ackWaitMs: 30_000, drainMs: 0 })).toBe(
      10_000,
    );
    expect(platformCallTimeoutMs({ requestedMs: 10, ackWaitMs: 1_000, drainMs: 100 })).toBe(250);
  });
});
