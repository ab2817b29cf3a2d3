import { meaningOfSignal, SAME_PRESS_MS } from './signal-presses';

describe('D8 — one Ctrl-C, however many copies of it arrive', () => {
  it('D8 the first signal drains, a copy within a second is the same press, a later one kills', () => {
    expect(meaningOfSignal(undefined, 5_000)).toBe('drain');
    expect(meaningOfSignal(5_000, 5_000)).toBe('same press');
    expect(meaningOfSignal(5_000, 5_000 + SAME_PRESS_MS - 1)).toBe('same press');
    expect(meaningOfSignal(5_000, 5_000 + SAME_PRESS_MS)).toBe('kill');
    expect(meaningOfSignal(5_000, 60_000)).toBe('kill');
  });
});
