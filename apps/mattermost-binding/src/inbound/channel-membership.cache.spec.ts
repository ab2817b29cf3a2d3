import { ChannelMembership } from './channel-membership.cache';

describe('X3 channel membership, cached briefly', () => {
  function setup(answers: Record<string, boolean>) {
    let now = 0;
    const asked: string[] = [];
    const membership = new ChannelMembership(
      async (channelId, userId) => {
        asked.push(`${channelId}/${userId}`);
        const answer = answers[`${channelId}/${userId}`];
        if (answer === undefined) throw new Error('server unavailable');
        return answer;
      },
      { ttlMs: 30_000, maxEntries: 2, now: () => now },
    );
    return { membership, asked, advance: (ms: number) => (now += ms) };
  }

  it('asks once per person and channel while the answer is fresh, then asks again', async () => {
    const { membership, asked, advance } = setup({ 'c1/u1': true, 'c1/u2': false });
    expect(await membership.isMember('c1', 'u1')).toBe(true);
    expect(await membership.isMember('c1', 'u1')).toBe(true);
    expect(await membership.isMember('c1', 'u2')).toBe(false);
    expect(await membership.isMember('c1', 'u2')).toBe(false);
    expect(asked).toEqual(['c1/u1', 'c1/u2']);
    advance(30_000);
    expect(await membership.isMember('c1', 'u1')).toBe(true);
    expect(asked).toEqual(['c1/u1', 'c1/u2', 'c1/u1']);
  });

  it('keeps at most maxEntries answers, dropping the oldest', async () => {
    const { membership, asked } = setup({ 'c1/u1': true, 'c1/u2': true, 'c1/u3': true });
    await membership.isMember('c1', 'u1');
    await membership.isMember('c1', 'u2');
    await membership.isMember('c1', 'u3');
    await membership.isMember('c1', 'u3');
    await membership.isMember('c1', 'u2');
    expect(asked).toEqual(['c1/u1', 'c1/u2', 'c1/u3']);
    await membership.isMember('c1', 'u1');
    expect(asked).toEqual(['c1/u1', 'c1/u2', 'c1/u3', 'c1/u1']);
  });

  it('shares one lookup among concurrent clicks, and remembers no failure', async () => {
    const { membership, asked } = setup({ 'c1/u1': true });
    await Promise.all([membership.isMember('c1', 'u1'), membership.isMember('c1', 'u1')]);
    expect(asked).toEqual(['c1/u1']);
    await expect(membership.isMember('c2', 'u1')).rejects.toThrow('server unavailable');
    await expect(membership.isMember('c2', 'u1')).rejects.toThrow('server unavailable');
    expect(asked).toEqual(['c1/u1', 'c2/u1', 'c2/u1']);
  });
});
