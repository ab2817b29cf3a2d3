import { ConnectionGate } from './connection-gate';

describe('ConnectionGate', () => {
  it('D2 holds at most `size` slots; waiters get them in arrival order, none lost', async () => {
    const gate = new ConnectionGate(2);
    const order: string[] = [];
    const first = await gate.acquire();
    const second = await gate.acquire();
    const third = gate.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = gate.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // a second call gives nothing back twice
    const releaseThird = await third;
    expect(order).toEqual(['third']);
    second();
    const releaseFourth = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    releaseThird();
    releaseFourth();
    // All four slots came back: two can be taken again at once, a third waits.
    await gate.acquire();
    await gate.acquire();
    let thirdAgain = false;
    void gate.acquire().then(() => (thirdAgain = true));
    await Promise.resolve();
    expect(thirdAgain).toBe(false);
  });

  it('D2 run gives the slot back when the work throws', async () => {
    const gate = new ConnectionGate(1);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(async () => 'next')).resolves.toBe('next');
  });

  it('D2 refuses a gate that could never admit anyone', () => {
    expect(() => new ConnectionGate(0)).toThrow('gate size 0');
  });
});
