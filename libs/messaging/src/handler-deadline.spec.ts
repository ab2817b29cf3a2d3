import { handleWithin, HandlerTimedOut } from './handler-deadline';

/** Ref'd timers only: Node leaves an unref'd timer out of the active resources. */
const refTimers = (): number =>
  process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('R5 the handler deadline', () => {
  it('R5 fails a handler with no result in time as HandlerTimedOut', async () => {
    const result = await handleWithin(20, () => new Promise<void>(() => undefined));
    expect(result.failed).toBe(true);
    expect(result.failed && result.failure).toBeInstanceOf(HandlerTimedOut);
  });

  it('R5 a handler that returns in time has not failed, and its deadline is cleared', async () => {
    const before = refTimers();
    expect(await handleWithin(60_000, async () => undefined)).toEqual({ failed: false });
    expect(refTimers()).toBe(before);
  });

  it('R5 the deadline of a hung handler does not keep the process alive', async () => {
    // A drain that gave up on a hung handler must let the service (and a jest worker) exit:
    // the five-minute deadline still runs, but not as a reason to stay up.
    const before = refTimers();
    let started = false;
    void handleWithin(5 * 60_000, () => {
      started = true;
      return new Promise<void>(() => undefined);
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toBe(true);
    expect(refTimers()).toBe(before);
  });
});
