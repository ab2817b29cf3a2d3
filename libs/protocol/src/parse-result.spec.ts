import { MAX_DETAIL_LENGTH, quoteValue, refused } from './parse-result';

describe('refused', () => {
  it('keeps a short detail as is', () => {
    expect(refused('invalid_payload', 'text: too long')).toEqual({
      ok: false,
      reason: 'invalid_payload',
      detail: 'text: too long',
    });
  });

  it('cuts a long detail to the bound', () => {
    const { detail } = refused('invalid_subject', 'x'.repeat(5_000));

    expect(detail).toHaveLength(MAX_DETAIL_LENGTH);
    expect(detail.endsWith('…')).toBe(true);
  });

  it('leaves no line break a header could be split at', () => {
    expect(refused('invalid_payload', 'a\r\nInjected: b').detail).toBe('a Injected: b');
  });
});

describe('quoteValue', () => {
  it('quotes strings as JSON and shortens long ones', () => {
    expect(quoteValue('1')).toBe('"1"');
    expect(quoteValue('y'.repeat(100))).toHaveLength(60);
  });

  it('names what cannot be serialised', () => {
    expect(quoteValue(undefined)).toBe('nothing');
    expect(quoteValue(10n)).toBe('bigint');
  });
});
