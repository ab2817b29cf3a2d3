import { decidePrompt } from '../../../libs/binding-core/src/prompt/prompt-lifecycle.decider';
import { BindingHarness } from './binding-harness';
import { promptOutputs } from './prompt-outputs';
import { statementsOf } from './statements-sent';

/**
 * D6: the records a replica's handlers finish in the same turn of the event loop are journaled
 * in one statement (RecordBatcher), and each caller still learns what `record` would have told
 * it; one record's failure stays its own.
 */
describe('D6 binding core: records finished together are journaled in one statement', () => {
  let harness: BindingHarness;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcorebatch');
  });

  afterAll(async () => {
    await harness.close();
  });

  /** Posted prompts, each claimed for its resolution as a handler would before its edit. */
  async function claimedResolutions(count: number) {
    const claimed = [];
    for (let i = 0; i < count; i += 1) {
      const p = promptOutputs();
      await harness.handleOutput().handleOutput(p.request(3));
      const claim = await harness.prompts.claim(
        { key: p.key, conversation: p.conversation, owner: 'replica-a', leaseMs: 120_000 },
        (state) => decidePrompt(state, p.resolved(8)),
      );
      if (claim.kind !== 'claimed' || claim.decision.kind !== 'edit') {
        throw new Error(`could not claim prompt ${i} for its edit: ${claim.kind}`);
      }
      claimed.push({ p, claim: claim });
    }
    return claimed;
  }

  it('D6 five edits completed in one turn take one statement, and each prompt is journaled whole', async () => {
    const claimed = await claimedResolutions(5);
    const { sent, result } = await statementsOf(() =>
      Promise.all(
        claimed.map(({ claim }) =>
          claim.decision.kind === 'edit'
            ? harness.prompts.complete(claim.lease, [claim.decision.event])
            : Promise.reject(new Error('not an edit')),
        ),
      ),
    );
    expect(result).toEqual([true, true, true, true, true]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('INSERT INTO prompt_events');
    for (const { p } of claimed) {
      expect(await harness.promptRow(p.key)).toMatchObject({
        status: 'cleared',
        outcome: 'resolved',
        last_seq: 8,
        request: { id: p.request(3).id, callId: p.request(3).callId },
        lease_owner: null,
        intent: null,
      });
      expect((await harness.journal(p.key)).map((e) => [e.type, e.seq])).toEqual([
        ['PendingApprovalPromptTracked', 3],
        ['PendingApprovalPromptCleared', 8],
      ]);
    }
  });

  it('D6 in a batch, a record whose claim was lost is refused alone and writes nothing', async () => {
    const [kept, lost] = await claimedResolutions(2);
    // Another replica took the second prompt over: its claim id is no longer the row's.
    await harness.expireLease(lost.p.key);
    const other = await harness.prompts.claim(
      { key: lost.p.key, conversation: lost.p.conversation, owner: 'replica-b', leaseMs: 120_000 },
      (state) => decidePrompt(state, lost.p.resolved(8)),
    );
    expect(other.kind).toBe('claimed');

    const { sent, result } = await statementsOf(() =>
      Promise.all(
        [kept, lost].map(({ claim }) =>
          claim.decision.kind === 'edit'
            ? harness.prompts.complete(claim.lease, [claim.decision.event])
            : Promise.reject(new Error('not an edit')),
        ),
      ),
    );
    expect(result).toEqual([true, false]);
    expect(sent).toHaveLength(1);
    expect(await harness.promptRow(kept.p.key)).toMatchObject({ status: 'cleared' });
    expect(await harness.promptRow(lost.p.key)).toMatchObject({
      status: 'pending',
      lease_owner: 'replica-b',
    });
    expect((await harness.journal(lost.p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
    ]);
  });

  it('D6 a record the database refuses fails alone: the others of its batch are journaled', async () => {
    const [first, broken, third] = await claimedResolutions(3);
    const complete = ({ claim }: typeof first) =>
      claim.decision.kind === 'edit'
        ? harness.prompts.complete(claim.lease, [claim.decision.event])
        : Promise.reject(new Error('not an edit'));
    // A pending state without its request breaks the prompts table's CHECK: the statement for
    // the three fails, and each is journaled again on its own.
    const refused = () =>
      harness.prompts.complete(
        {
          ...broken.claim.lease,
          claimed: { ...broken.claim.lease.claimed, request: undefined } as never,
        },
        [],
      );
    const { sent, result: settled } = await statementsOf(() =>
      Promise.allSettled([complete(first), refused(), complete(third)]),
    );
    // The statement for the three, then each on its own.
    expect(sent).toHaveLength(4);

    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(settled[0]).toMatchObject({ value: true });
    expect(settled[2]).toMatchObject({ value: true });
    for (const { p } of [first, third]) {
      expect(await harness.promptRow(p.key)).toMatchObject({ status: 'cleared', intent: null });
    }
    expect(await harness.promptRow(broken.p.key)).toMatchObject({
      status: 'pending',
      lease_owner: 'replica-a',
    });
  });

  it('D6 two records of one prompt in a turn are journaled one after the other, never together', async () => {
    const [only] = await claimedResolutions(1);
    if (only.claim.decision.kind !== 'edit') throw new Error('not an edit');
    const event = only.claim.decision.event;
    // The same completion twice in one turn (a retried handler): the first writes, the second
    // finds its claim ended by the first.
    const { sent, result } = await statementsOf(() =>
      Promise.all([
        harness.prompts.complete(only.claim.lease, [event]),
        harness.prompts.complete(only.claim.lease, [event]),
      ]),
    );
    expect(result).toEqual([true, false]);
    expect(sent).toHaveLength(2);
    expect((await harness.journal(only.p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptCleared',
    ]);
  });
});
