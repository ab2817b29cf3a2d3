import { SessionMailbox } from './session-mailbox';

/** An item whose processing ends when the test says so. */
interface Gate {
  readonly name: string;
  open(): void;
  fail(error: Error): void;
  readonly opened: Promise<void>;
}

function gate(name: string): Gate {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { name, open, fail, opened };
}

/** Lets every settled promise's continuations run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

function mailbox(maxActive: number) {
  const started: string[] = [];
  const failures: string[] = [];
  const active: number[] = [];
  const box = new SessionMailbox<Gate>({
    maxActive,
    process: (sessionId, item) => {
      started.push(`${sessionId}:${item.name}`);
      return item.opened;
    },
    onFailure: (sessionId, item, error) =>
      failures.push(`${sessionId}:${item.name}: ${(error as Error).message}`),
    onActive: (n) => active.push(n),
  });
  return { box, started, failures, active };
}

describe('D3 the per-session mailbox', () => {
  it('D3 one session’s items run one at a time, in order, while other sessions run beside them', async () => {
    const { box, started } = mailbox(4);
    const [a1, a2, b1] = [gate('1'), gate('2'), gate('1')];
    box.post('a', a1);
    box.post('a', a2);
    box.post('b', b1);
    await settle();
    expect(started).toEqual(['a:1', 'b:1']);
    a1.open();
    await settle();
    expect(started).toEqual(['a:1', 'b:1', 'a:2']);
    a2.open();
    b1.open();
    await settle();
    expect(box.busySessions).toBe(0);
  });

  it('D3 at most maxActive sessions run; a waiting one starts when a slot frees, a session with items left first', async () => {
    const { box, started, active } = mailbox(1);
    const [a1, a2, b1] = [gate('1'), gate('2'), gate('1')];
    expect(box.wouldStartNow('a')).toBe(true);
    box.post('a', a1);
    expect(box.wouldStartNow('b')).toBe(false);
    box.post('b', b1);
    box.post('a', a2);
    await settle();
    expect(started).toEqual(['a:1']);
    a1.open();
    await settle();
    // a's turn goes on with a:2 (it holds the slot until its mailbox is empty).
    expect(started).toEqual(['a:1', 'a:2']);
    a2.open();
    await settle();
    expect(started).toEqual(['a:1', 'a:2', 'b:1']);
    b1.open();
    await settle();
    expect(Math.max(...active)).toBe(1);
    expect(box.activeSessions).toBe(0);
  });

  it('D3 an item whose processing throws is dropped and reported; the session goes on', async () => {
    const { box, started, failures } = mailbox(2);
    const [a1, a2] = [gate('1'), gate('2')];
    box.post('a', a1);
    box.post('a', a2);
    a1.fail(new Error('a bug'));
    await settle();
    expect(failures).toEqual(['a:1: a bug']);
    // The run that failed ended; the session's next item runs in a fresh turn.
    expect(started).toEqual(['a:1', 'a:2']);
    a2.open();
    await settle();
    expect(box.busySessions).toBe(0);
  });

  it('D3 a stop starts nothing more and waits for what runs; a failure while stopping is no bug', async () => {
    const { box, started, failures } = mailbox(1);
    const [a1, b1] = [gate('1'), gate('1')];
    box.post('a', a1);
    box.post('b', b1);
    await settle();
    const stopped = box.stop(60_000);
    expect(box.wouldStartNow('c')).toBe(false);
    a1.fail(new Error('interrupted by the stop'));
    await stopped;
    expect(started).toEqual(['a:1']);
    expect(failures).toEqual([]);
    // a's interrupted item and b's stay where they are: the journal holds them for the next process.
    expect(box.busySessions).toBe(2);
  });
});
