import { outputId, unjournaledOutputId } from './output-id';

const sessionId = 'slack-6887d0a5fc9b0bbb9ed2d76247aca200';

describe('outputId', () => {
  it('is <sessionId>:<seq>:<n>', () => {
    expect(outputId(sessionId, 12, 0)).toBe(`${sessionId}:12:0`);
    expect(outputId(sessionId, 12, 3)).toBe(`${sessionId}:12:3`);
  });

  it.each([
    [0, 0],
    [-1, 0],
    [1.5, 0],
    [1, -1],
    [1, 0.5],
  ])('refuses seq %p with n %p', (seq, n) => {
    expect(() => outputId(sessionId, seq, n)).toThrow(RangeError);
  });
});

describe('unjournaledOutputId', () => {
  it('is <sessionId>:0:<command id>', () => {
    expect(unjournaledOutputId(sessionId, '1700000001.000200:U0002')).toBe(
      `${sessionId}:0:1700000001.000200:U0002`,
    );
  });

  it('refuses an empty or oversize command id', () => {
    expect(() => unjournaledOutputId(sessionId, '')).toThrow(RangeError);
    expect(() => unjournaledOutputId(sessionId, 'c'.repeat(201))).toThrow(RangeError);
    expect(unjournaledOutputId(sessionId, 'c'.repeat(200))).toHaveLength(sessionId.length + 203);
  });
});
