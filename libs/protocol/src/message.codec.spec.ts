import { decodeJson, encodeMessage } from './message.codec';
import { parseOutput } from './message.parser';
import { aRequest } from './testing/message-fixtures';

describe('encodeMessage', () => {
  it('writes the JSON text as UTF-8', () => {
    const message = aRequest({ displayText: 'écrire ☃' });
    const encoded = encodeMessage(message);

    expect(encoded).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(encoded).toString('utf8')).toBe(JSON.stringify(message));
  });

  it('round-trips through parseOutput', () => {
    const message = aRequest({ displayText: 'écrire ☃' });

    expect(parseOutput(encodeMessage(message))).toEqual({ ok: true, value: message });
  });
});

describe('decodeJson', () => {
  it('passes an already decoded value through', () => {
    const value = { a: 1 };

    expect(decodeJson(value)).toEqual({ ok: true, value });
  });

  it('decodes an ArrayBuffer', () => {
    const { buffer } = new TextEncoder().encode('{"a":1}');

    expect(decodeJson(buffer)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses text that is not JSON', () => {
    expect(decodeJson('{a:1}')).toMatchObject({ ok: false, reason: 'invalid_json' });
  });
});
