import fc from 'fast-check';
import { platformSafe, platformSafeText } from './platform-safe-text';

describe('platformSafeText (X19)', () => {
  it('X19 turns each unpaired surrogate into U+FFFD in its own place and keeps pairs', () => {
    expect(platformSafeText('ok\ud800')).toBe('ok\ufffd');
    expect(platformSafeText('\udc00\ud800')).toBe('\ufffd\ufffd');
    expect(platformSafeText('a\udc00b')).toBe('a\ufffdb');
    expect(platformSafeText('\ud83d\ude00 \ud83d')).toBe('\ud83d\ude00 \ufffd');
    expect(platformSafeText('nul\u0000here')).toBe('nul\ufffdhere');
    expect(platformSafeText('plain text ✓')).toBe('plain text ✓');
  });

  it('X19 makes every string of a request body safe, keys and nested arrays included', () => {
    const body = JSON.parse(
      '{"text":"\\ud800","blocks":[{"t":"x\\u0000"}],"n":1,"ok":true,"__proto__":"\\udc00"}',
    ) as Record<string, unknown>;
    const safe = platformSafe({ ...body, buffer: Buffer.from('a') });
    expect(JSON.stringify(safe)).toBe(
      JSON.stringify({ text: '\ufffd', blocks: [{ t: 'x\ufffd' }], n: 1, ok: true }).replace(
        /}$/,
        ',"__proto__":"\ufffd","buffer":{"type":"Buffer","data":[97]}}',
      ),
    );
    expect(Object.keys(safe)).toContain('__proto__');
    expect(safe.buffer).toBeInstanceOf(Buffer);
    expect(body.text).toBe('\ud800');
  });

  it('X19 hands back a body with nothing to replace as it is, and copies only what changed', () => {
    const clean = { text: 'hi ✓', blocks: [{ t: 'a' }, { t: ['b', 'c'] }], n: 1 };
    expect(platformSafe(clean)).toBe(clean);

    const dirty = { text: 'hi', blocks: [{ t: 'a' }, { t: ['b', 'c\ud800'] }], n: 1 };
    const safe = platformSafe(dirty);
    expect(safe).not.toBe(dirty);
    expect(safe).toEqual({ text: 'hi', blocks: [{ t: 'a' }, { t: ['b', 'c\ufffd'] }], n: 1 });
    expect(safe.blocks[0]).toBe(dirty.blocks[0]);
    expect(dirty.blocks[1]).toEqual({ t: ['b', 'c\ud800'] });
  });

  it('X19 gives what rebuilding the whole body gives, for any JSON body', () => {
    const rebuilt = (value: unknown): unknown => {
      if (typeof value === 'string') return platformSafeText(value);
      if (Array.isArray(value)) return value.map(rebuilt);
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, entry]) => [platformSafeText(key), rebuilt(entry)]),
      );
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string({ unit: 'binary' }), (body, text) => {
        const withText = { body, [text]: [text, { text }] };
        expect(JSON.stringify(platformSafe(withText))).toBe(JSON.stringify(rebuilt(withText)));
      }),
    );
  });
});
