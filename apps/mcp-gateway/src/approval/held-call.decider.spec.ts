import type { Approval } from './approval';
import { nextStep, stillPendingText } from './held-call.decider';

const pending: Approval = {
  id: 'apr_1',
  status: 'pending',
  tool: 'fs__write_file',
  argumentsHash: 'sha256:ab',
  decision: null,
  redeemedAt: null,
};

const decided = (status: Approval['status'], reason: string | null = null): Approval => ({
  ...pending,
  status,
  decision: {
    option: status === 'approved' ? 'approve_once' : 'deny',
    by: { platform: 'slack', id: 'U1', displayName: 'Alice' },
    via: 'click',
    reason,
  },
});

describe('M2 — nextStep', () => {
  it('waits on a pending approval, reported or not', () => {
    expect(nextStep(pending, false)).toEqual({ kind: 'wait' });
    expect(nextStep(pending, true)).toEqual({ kind: 'wait' });
  });

  it('redeems an approval nobody redeemed yet', () => {
    expect(nextStep(decided('approved'), false)).toEqual({ kind: 'redeem' });
  });

  it('asks again once the approval was redeemed: the identical call later is a new run', () => {
    expect(nextStep({ ...decided('approved'), redeemedAt: '2026-12-01T00:00:00Z' }, false)).toEqual(
      {
        kind: 'ask_again',
      },
    );
  });

  it('names the approver and the reason of a denial', () => {
    expect(nextStep(decided('denied', 'not on prod'), false)).toEqual({
      kind: 'refuse',
      text: 'Denied by Alice: not on prod',
    });
  });

  it('refuses an expired or withdrawn approval, naming it', () => {
    expect(nextStep(decided('expired'), false)).toMatchObject({
      kind: 'refuse',
      text: expect.stringContaining('apr_1 expired'),
    });
    expect(nextStep(decided('cancelled'), false)).toMatchObject({
      kind: 'refuse',
      text: expect.stringContaining('apr_1 was withdrawn'),
    });
  });

  it('asks again after an outcome this gateway already reported', () => {
    expect(nextStep(decided('denied', 'no'), true)).toEqual({ kind: 'ask_again' });
    expect(nextStep(decided('expired'), true)).toEqual({ kind: 'ask_again' });
  });

  it('tells the agent which approval is pending and to call again', () => {
    expect(stillPendingText(pending, 50)).toMatch(/apr_1.*still waiting.*Call this tool again/s);
  });
});
