import type { Person, Quorum, ToolInteractionRequest } from '@tollgate/protocol';
import { promptStatusLine, type StatusMarkup } from './prompt-status';
import { tallyLine } from './prompt-tally';

const markup: StatusMarkup = {
  bold: (t) => `*${t}*`,
  escape: (t) => t,
  mention: (p) => p.displayName ?? p.id,
};
const ALICE: Person = { id: 'U1', displayName: 'Alice' };
const BOB: Person = { id: 'U2', displayName: 'Bob' };
const CAROL: Person = { id: 'U3', displayName: 'Carol' };
const ADA: Person = { id: 'U0', displayName: 'Ada' };
const AT = '2026-12-01T17:00:00.000Z';

const oneOfTwo: Quorum = {
  required: 2,
  approvals: [{ by: ALICE, at: AT }],
  waitingFor: [BOB, CAROL],
};

describe('G1 the tally line', () => {
  it('G1 names who approved and who is still waited for, as the issue words it', () => {
    expect(tallyLine(oneOfTwo, markup)).toBe(
      '1 of 2 approvals: ✓ Alice · waiting for Bob, Carol (1 needed)',
    );
    expect(tallyLine({ ...oneOfTwo, approvals: [], waitingFor: [ALICE, BOB] }, markup)).toBe(
      '0 of 2 approvals · waiting for Alice, Bob',
    );
  });

  it('G1 without named approvers counts those still needed, and says who may not count', () => {
    expect(tallyLine({ required: 2, approvals: [], separateFrom: ADA }, markup)).toBe(
      '0 of 2 approvals · waiting for 2 more (not Ada, who asked)',
    );
  });

  it('G1 keeps within its budget however many approvers: names past it are counted', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({
      id: `U${i}`,
      displayName: 'x'.repeat(40),
    }));
    const line = tallyLine({ required: 20, approvals: [], waitingFor: many }, markup, 200);
    expect(line.length).toBeLessThanOrEqual(200);
    expect(line).toMatch(/waiting for (x+, )+\d+ more \(|waiting for (x+, )+\d+ more$/);
  });

  it('G1 a pending prompt shows its tally; a refresh keeps "still valid" and the tally', () => {
    const request = { quorum: oneOfTwo } as ToolInteractionRequest;
    expect(promptStatusLine({ kind: 'pending', request }, markup)).toBe(
      tallyLine(oneOfTwo, markup),
    );
    expect(promptStatusLine({ kind: 'refreshed', request }, markup)).toBe(
      `:arrows_counterclockwise: Tollgate restarted; this request is still valid.\n${tallyLine(oneOfTwo, markup)}`,
    );
  });

  it('G1 the decision names every approver, or the veto and whom it overruled', () => {
    const request = { quorum: oneOfTwo } as ToolInteractionRequest;
    const approvals = [
      { by: ALICE, at: AT },
      { by: BOB, at: AT },
    ];
    expect(
      promptStatusLine(
        {
          kind: 'resolved',
          request,
          optionKey: 'approve_once',
          label: 'Approve once',
          resolvedBy: BOB,
          approvals,
        },
        markup,
      ),
    ).toBe('*Approve once* by Alice, Bob');
    expect(
      promptStatusLine(
        {
          kind: 'resolved',
          request,
          optionKey: 'deny',
          label: 'Deny',
          resolvedBy: CAROL,
          approvals: [{ by: ALICE, at: AT }],
        },
        markup,
      ),
    ).toBe('*Deny* by Carol, a veto overruling ✓ Alice');
  });
});
