import { InteractionTokenSealer } from './interaction-token.sealer';

describe('X4 InteractionTokenSealer', () => {
  const sealer = new InteractionTokenSealer('bot-token-a');

  it('X4 opens what it sealed, and the sealed bytes do not hold the token', () => {
    const sealed = sealer.seal('itok_live', 'u1\nc1');
    expect(sealed.toString('latin1')).not.toContain('itok_live');
    expect(sealer.open(sealed, 'u1\nc1')).toBe('itok_live');
  });

  it('X4 seals the same token differently each time', () => {
    expect(sealer.seal('itok_live', 'u1\nc1').equals(sealer.seal('itok_live', 'u1\nc1'))).toBe(
      false,
    );
  });

  it('X4 opens nothing sealed under another bot token, for another row, or tampered with', () => {
    const sealed = sealer.seal('itok_live', 'u1\nc1');
    expect(new InteractionTokenSealer('bot-token-b').open(sealed, 'u1\nc1')).toBeUndefined();
    expect(sealer.open(sealed, 'u2\nc1')).toBeUndefined();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(sealer.open(tampered, 'u1\nc1')).toBeUndefined();
    expect(sealer.open(Buffer.alloc(4), 'u1\nc1')).toBeUndefined();
  });
});
