import { MAX_SET_ASIDE_SURPLUS, nextSurplus } from './pull-loop';

describe('P5 nextSurplus: pulls grow only through a backlog triage sets aside', () => {
  it('P5 a full pull set aside (mostly) doubles the surplus, up to its bound', () => {
    expect(nextSurplus(64, 64, 0)).toBe(128);
    expect(nextSurplus(64, 64, 8)).toBe(112);
    expect(nextSurplus(576, 576, 2)).toBe(MAX_SET_ASIDE_SURPLUS);
  });

  it('P5 a pull mostly held, or come back short, asks for the free slots again', () => {
    expect(nextSurplus(64, 64, 40)).toBe(0);
    expect(nextSurplus(576, 397, 3)).toBe(0);
    expect(nextSurplus(64, 0, 0)).toBe(0);
  });
});
