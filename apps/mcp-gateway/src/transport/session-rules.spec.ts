import {
  admitSession,
  duplicateRequestId,
  idleSessions,
  requestIdsOf,
  type SessionView,
} from './session-rules';

const limits = { idleMs: 1_000, max: 3 };
const session = (id: string, open: number, lastActive: number): SessionView => ({
  id,
  open,
  lastActive,
});

describe('M8 — session admission and idle expiry', () => {
  it('M8 admits below the limit, counting sessions still opening', () => {
    expect(admitSession([session('a', 0, 0)], 1, limits)).toEqual({ kind: 'admit' });
    expect(admitSession([session('a', 0, 0), session('b', 1, 0)], 1, limits)).not.toEqual({
      kind: 'admit',
    });
  });

  it('M8 at the limit, evicts the least recently active idle session, never a busy one', () => {
    const live = [session('busy', 2, 0), session('newer', 0, 500), session('older', 0, 100)];
    expect(admitSession(live, 0, limits)).toEqual({ kind: 'evict', id: 'older' });
  });

  it('M8 at the limit with every session busy, refuses with the reason session_limit', () => {
    const live = [session('a', 1, 0), session('b', 1, 0), session('c', 3, 0)];
    expect(admitSession(live, 0, limits)).toEqual({ kind: 'refuse', reason: 'session_limit' });
  });

  it('M8 expires only sessions with nothing open and no exchange for the idle time', () => {
    const live = [session('held', 1, 0), session('idle', 0, 0), session('recent', 0, 600)];
    expect(idleSessions(live, 1_000, limits)).toEqual(['idle']);
    expect(idleSessions(live, 999, limits)).toEqual([]);
  });
});

describe('M9 — duplicate request ids', () => {
  it('M9 reads the request ids of one message or a batch, skipping notifications and junk', () => {
    expect(requestIdsOf({ jsonrpc: '2.0', id: 7, method: 'tools/call' })).toEqual([7]);
    expect(
      requestIdsOf([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 3, result: {} },
        null,
        'junk',
        { id: { nested: 1 }, method: 'ping' },
      ]),
    ).toEqual(['a']);
  });

  it('M9 finds an id already open on the session, or repeated within a batch; 1 and "1" differ', () => {
    expect(duplicateRequestId(new Set([1, 'x']), [2, 'x'])).toBe('x');
    expect(duplicateRequestId(new Set(), [4, 5, 4])).toBe(4);
    expect(duplicateRequestId(new Set([1]), ['1', 2])).toBeUndefined();
  });
});
