import fc from 'fast-check';
import { fromJsonbValue, toJsonbArrayText, toJsonbText, toJsonbValue } from './jsonb-text.codec';

// What PostgreSQL refuses in a jsonb literal: the \u0000 escape and an unpaired surrogate.
const REFUSED_ESCAPE =
  /\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i;

// Full UTF-16 code units, so NUL and lone surrogates of both halves come up often.
const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const hostile = fc.oneof(
  anyString,
  fc.constantFrom('a\u0000b', '\ud800', '\udfff', '%00', '%uD800', '%25', '%', '\ud83d\ude00'),
  // A literal backslash before what looks like a refused escape, for toJsonbText's text scan.
  fc.constantFrom('\\u0000', 'x\\ud800', '\\\u0000'),
);
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostile,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostile, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the jsonb text escaping', () => {
  it('round-trips every JSON value exactly', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const stored: unknown = JSON.parse(toJsonbText(value));
        expect(fromJsonbValue(stored)).toEqual(value);
      }),
      { seed: 9008, numRuns: 2_000 },
    );
  });

  it('never writes an escape PostgreSQL refuses', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        // A backslash escaped in the JSON text (two of them) starts no escape: JSON `\\u0000`
        // is text, not U+0000.
        expect(toJsonbText(value).replace(/\\\\/g, '')).not.toMatch(REFUSED_ESCAPE);
      }),
      { seed: 9008, numRuns: 2_000 },
    );
  });

  it('writes by its scan of the stringified text exactly what the walk of the value writes', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        expect(toJsonbText(value)).toBe(JSON.stringify(toJsonbValue(value)));
      }),
      { seed: 9008, numRuns: 2_000 },
    );
  });

  it('writes an array parameter whose elements are what toJsonbText writes, undefined as null', () => {
    fc.assert(
      fc.property(fc.array(anyJson, { maxLength: 5 }), (values) => {
        const stored = JSON.parse(toJsonbArrayText(values)) as unknown[];
        expect(stored.map((s) => JSON.stringify(s))).toEqual(values.map(toJsonbText));
      }),
      { seed: 9008, numRuns: 500 },
    );
    expect(toJsonbArrayText([])).toBe('[]');
    expect(JSON.parse(toJsonbArrayText([undefined, null, { a: 1 }]))).toEqual([
      null,
      null,
      { a: 1 },
    ]);
  });

  it('leaves a value with nothing to escape exactly as it was', () => {
    const event = { type: 'UserMessageReceived', text: '100% sure, 😀' };
    expect(toJsonbValue(event)).toBe(event);
    expect(fromJsonbValue(event)).toBe(event);
  });

  it('marks an escaped object and escapes the escape character itself', () => {
    expect(toJsonbValue({ type: 'ToolCallRecorded', result: 'a\u0000b 50% \ud800' })).toEqual({
      $escaped: 1,
      type: 'ToolCallRecorded',
      result: 'a%00b 50%25 %uD800',
    });
  });

  it('wraps a value that is not an object, or one that holds the marker key itself', () => {
    expect(toJsonbValue('a\u0000')).toEqual({ $escaped: 2, value: 'a%00' });
    expect(toJsonbValue({ $escaped: 1 })).toEqual({ $escaped: 2, value: { $escaped: 1 } });
    expect(fromJsonbValue({ $escaped: 2, value: { $escaped: 1 } })).toEqual({ $escaped: 1 });
  });

  it('X16 keeps `__proto__` keys as keys, escaped or not, at any depth', () => {
    for (const text of [
      '{"__proto__":1}',
      '{"__proto__":"a\\u0000b","nested":{"__proto__":{"constructor":"\\ud800"}}}',
      '{"$escaped":1,"__proto__":[{"__proto__":"%"}]}',
    ]) {
      const value: unknown = JSON.parse(text);
      const back: unknown = fromJsonbValue(JSON.parse(toJsonbText(value)));
      expect(JSON.stringify(back)).toBe(JSON.stringify(value));
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    }
  });
});
