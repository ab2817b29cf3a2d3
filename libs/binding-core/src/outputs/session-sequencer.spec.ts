import { SessionSequencer } from './session-sequencer';

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('SessionSequencer', () => {
  it("runs one session's work in the order it was queued, each after the last settled", async () => {
    const sequencer = new SessionSequencer();
    const first = gate();
    const order: string[] = [];

    const a = sequencer.run('s1', async () => {
      await first.opened;
      order.push('abandon');
    });
    const b = sequencer.run('s1', async () => {
      order.push('request');
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first.open();
    await Promise.all([a, b]);

    expect(order).toEqual(['abandon', 'request']);
    expect(sequencer.busySessions).toBe(0);
  });

  it('does not hold other sessions up', async () => {
    const sequencer = new SessionSequencer();
    const held = gate();
    const slow = sequencer.run('s1', () => held.opened);

    await expect(sequencer.run('s2', async () => 'done')).resolves.toBe('done');
    held.open();
    await slow;
  });

  it('goes on after a failure, which reaches only its own caller', async () => {
    const sequencer = new SessionSequencer();

    const failed = sequencer.run('s1', async () => {
      throw new Error('platform down');
    });
    const next = sequencer.run('s1', async () => 'next');

    await expect(failed).rejects.toThrow('platform down');
    await expect(next).resolves.toBe('next');
    await Promise.resolve();
    expect(sequencer.busySessions).toBe(0);
  });
});
