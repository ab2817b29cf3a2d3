import { canonicalize } from 'json-canonicalize';
import { fromJsonbValue, toJsonbText } from '@tollgate/persistence';
import { withClient } from '../../support/database';

/**
 * X16: call ids and tool arguments are outside strings, so `__proto__` is a key like any other.
 * JSON.parse (and node-postgres reading jsonb) makes it an own property; assigning it would
 * set the prototype instead and lose it. Stored and read back through PostgreSQL itself.
 */
describe('X16 — the jsonb codec keeps __proto__ keys through PostgreSQL', () => {
  it.each([
    '{"__proto__":1}',
    '{"__proto__":{"constructor":"a\\u0000b"},"callId":"__proto__"}',
    '{"args":{"__proto__":"\\ud800","toString":1}}',
  ])('X16 round-trips %s', async (text) => {
    const value: unknown = JSON.parse(text);
    const stored = await withClient(async (client) => {
      const result = await client.query<{ v: unknown }>('SELECT $1::jsonb AS v', [
        toJsonbText(value),
      ]);
      return result.rows[0].v;
    });
    const back: unknown = fromJsonbValue(stored);
    // jsonb orders keys its own way; what must hold is the same keys with the same values.
    expect(canonicalize(back)).toBe(canonicalize(value));
    expect(Object.keys(back as object)).toEqual(
      expect.arrayContaining(Object.keys(value as object)),
    );
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });
});
