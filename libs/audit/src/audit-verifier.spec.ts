import { chain, GENESIS_HASH } from './audit-chain';
import type { AuditDraft, AuditEntry } from './audit-entry';
import { AuditVerifier } from './audit-verifier';

const draft = (i: number): AuditDraft => ({
  at: `2026-12-01T10:00:0${i}.000Z`,
  kind: 'answer',
  sessionId: 's1',
  callId: `c${i}`,
  who: { id: 'U_ALICE', displayName: 'Alice' },
  via: null,
  argumentsHash: null,
  detail: { option: 'approve_once', n: i },
});

function day(count: number): AuditEntry[] {
  return chain(
    '2026-12-01',
    { hash: GENESIS_HASH, count: 0 },
    [...Array(count).keys()].map(draft),
  ).map((e, i) => ({ ...e, seq: String(100 + i) }));
}

function verify(entries: readonly AuditEntry[], head = { count: 3, hash: day(3)[2].hash }) {
  const verifier = new AuditVerifier(
    new Map([
      ['2026-12-01', { day: '2026-12-01', headHash: head.hash, count: head.count, pruned: false }],
    ]),
  );
  for (const e of entries) if (!verifier.add(e)) break;
  return verifier.finish();
}

describe('G4 the audit chain', () => {
  it('G4 an intact day verifies, whatever order the keys of its detail come back in', () => {
    const entries = day(3).map((e) => ({
      ...e,
      detail: { n: e.detail.n, option: e.detail.option },
    }));
    expect(verify(entries)).toBeUndefined();
  });

  it('G4 an edited, removed or missing-tail entry is named', () => {
    const edited = day(3);
    edited[1] = { ...edited[1], who: { id: 'U_MALLORY' } };
    expect(verify(edited)).toMatchObject({
      seq: '101',
      n: 2,
      problem: expect.stringContaining('edited'),
    });
    const removed = day(3).filter((e) => e.n !== 2);
    expect(verify(removed)).toMatchObject({ seq: '102', n: 3 });
    expect(verify(day(3).slice(0, 2))).toMatchObject({ seq: null, n: 3 });
  });
});
