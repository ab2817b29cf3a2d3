import { BindingHarness } from './binding-harness';
import { promptOutputs } from './prompt-outputs';
import { statementsOf } from './statements-sent';

/**
 * D6: an edit of a pending prompt takes its lease in the statement that reads the row, so
 * the common output costs the database two statements (read-and-lease, journal); an output
 * a pending prompt drops (stale, or a repeated Request) takes no lease and writes nothing.
 */
describe('D6 binding core: the statements an output of a pending prompt makes', () => {
  let harness: BindingHarness;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcoreclaim');
  });

  afterAll(async () => {
    await harness.close();
  });

  it('D6 an edit of a pending prompt is two statements: the read that takes its lease, the journal', async () => {
    const handle = harness.handleOutput();
    const p = promptOutputs();
    await handle.handleOutput(p.request(3));
    const { sent } = await statementsOf(() => handle.handleOutput(p.resolved(7)));
    expect(harness.adapter.editsFor(p.promptRef)).toHaveLength(1);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('UPDATE prompts');
    expect(sent[1]).toContain('INSERT INTO prompt_events');
    // The request the row held is kept, not written again.
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'cleared',
      request: { id: p.request(3).id, callId: p.request(3).callId },
      lease_owner: null,
      intent: null,
    });
  });

  it('D6 a stale output or a repeated Request of a pending prompt is one statement and takes no lease', async () => {
    const handle = harness.handleOutput();
    const p = promptOutputs();
    await handle.handleOutput(p.request(3));
    await handle.handleOutput(p.refreshed(5));
    for (const [output, reason] of [
      [p.refreshed(4), 'stale_seq'],
      [p.request(6), 'duplicate_request'],
    ] as const) {
      const { sent } = await statementsOf(async () =>
        expect(await handle.handleOutput(output)).toEqual({ outcome: 'dropped', reason }),
      );
      expect(sent).toHaveLength(1);
    }
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      last_seq: 5,
      lease_owner: null,
      intent: null,
    });
    // Not held: the next output is applied at once, by another replica too.
    await expect(harness.handleOutput('replica-b').handleOutput(p.resolved(7))).resolves.toEqual({
      outcome: 'edited',
      view: 'resolved',
    });
  });
});
