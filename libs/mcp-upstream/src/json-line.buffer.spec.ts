import { JsonLineBuffer } from './json-line.buffer';

describe('M1 the upstream line buffer', () => {
  it('gives each whole line as parsed JSON, in order, and keeps a partial line for later', () => {
    const buffer = new JsonLineBuffer();
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\r\n{"jsonrpc":"2.0",'));
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from('"id":2,"result":{}}\n'));
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(buffer.readMessage()).toBeNull();
  });

  it('throws on a line that is not JSON, as the SDK buffer does', () => {
    const buffer = new JsonLineBuffer();
    buffer.append(Buffer.from('not json\n'));
    expect(() => buffer.readMessage()).toThrow(SyntaxError);
  });

  it('refuses to grow past its limit and forgets what it held', () => {
    const buffer = new JsonLineBuffer(16);
    buffer.append(Buffer.from('{"a":1}'));
    expect(() => buffer.append(Buffer.from('0123456789abc'))).toThrow(/exceeded maximum size/);
    expect(buffer.readMessage()).toBeNull();
  });
});
