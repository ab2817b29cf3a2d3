import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { isPlainRequest } from './plain-request';

const call = (extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'fs__read_text_file', arguments: { path: '/tmp/a' } },
  ...extra,
});

/** Messages as JSON.parse makes them: most near a request's envelope, some far off. */
const messages = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .record(
        {
          jsonrpc: fc.oneof(
            { weight: 4, arbitrary: fc.constant('2.0') },
            { weight: 1, arbitrary: fc.constantFrom('1.0', 2) },
          ),
          id: fc.oneof(
            fc.integer(),
            fc.string(),
            fc.double(),
            fc.constantFrom(2 ** 53, -(2 ** 53), null, true),
          ),
          method: fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.integer()),
          params: fc.oneof(
            {
              weight: 4,
              arbitrary: fc.dictionary(
                fc.constantFrom('name', 'arguments', '_meta', 'task', '__proto__', 'x'),
                fc.jsonValue(),
              ),
            },
            fc.jsonValue(),
          ),
        },
        { requiredKeys: ['jsonrpc', 'id', 'method'] },
      )
      .chain((envelope) =>
        // Now and then one key a request must not have.
        fc
          .oneof(
            { weight: 3, arbitrary: fc.constant(null) },
            fc.tuple(fc.constantFrom('result', 'error', 'extra', '__proto__'), fc.jsonValue()),
          )
          .map((added) =>
            added === null
              ? JSON.stringify(envelope)
              : `${JSON.stringify(envelope).slice(0, -1)},${JSON.stringify(added[0])}:${JSON.stringify(added[1])}}`,
          ),
      )
      .map((text) => JSON.parse(text) as unknown),
  },
  { weight: 1, arbitrary: fc.jsonValue() },
);

describe('M1 — a plain JSON-RPC request told without zod', () => {
  it('M1 takes a tools/call without _meta, by string or integer id, with or without params', () => {
    expect(isPlainRequest(call())).toBe(true);
    expect(isPlainRequest(call({ id: 'abc' }))).toBe(true);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 0, method: 'ping' })).toBe(true);
  });

  it('M1 leaves to the schema anything it does not fully check', () => {
    expect(isPlainRequest(call({ params: { name: 'x', _meta: { progressToken: 1 } } }))).toBe(
      false,
    );
    expect(
      isPlainRequest(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"x","params":{"__proto__":{}}}')),
    ).toBe(false);
    expect(isPlainRequest(call({ id: 1.5 }))).toBe(false);
    expect(isPlainRequest(call({ id: 2 ** 53 }))).toBe(false);
    expect(isPlainRequest(call({ extra: 1 }))).toBe(false);
    expect(isPlainRequest(call({ params: [] }))).toBe(false);
    expect(isPlainRequest(call({ jsonrpc: '1.0' }))).toBe(false);
    expect(isPlainRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    expect(isPlainRequest([call()])).toBe(false);
  });

  it('M1 says yes only where the SDK schema says yes, and the schema returns the message as it is', () => {
    let plain = 0;
    fc.assert(
      fc.property(messages, (message) => {
        if (!isPlainRequest(message)) return;
        plain += 1;
        const parsed = JSONRPCMessageSchema.safeParse(message);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(message);
      }),
      { numRuns: 5_000 },
    );
    // The property was tested on requests, not only on what it turns away.
    expect(plain).toBeGreaterThan(250);
  });
});
