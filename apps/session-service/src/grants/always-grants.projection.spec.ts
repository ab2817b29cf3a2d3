import { REQUESTER, SessionGiven } from '../session/domain/testing/session-given';
import { alwaysGrantsIn } from './always-grants.projection';

describe('"Always allow" answers become workspace grants', () => {
  async function answered(optionKey: string) {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"milk"}');
    const decision = await given.respond('call_2_1', optionKey);
    return {
      sessionId: decision.state.sessionId,
      grants: alwaysGrantsIn(
        decision.state,
        decision.events.map((r) => r.event),
      ),
    };
  }

  it('an approve_always answer grants its tool in the workspace, naming who and where', async () => {
    const { sessionId, grants } = await answered('approve_always');
    expect(grants).toEqual([
      { workspaceKey: 'slack:T0001', toolName: 'write_note', grantedBy: REQUESTER, sessionId },
    ]);
  });

  it.each(['approve_once', 'approve_session', 'deny'])('%s grants nothing', async (optionKey) => {
    expect((await answered(optionKey)).grants).toEqual([]);
  });

  it('a decision without an answer grants nothing', async () => {
    const decision = await new SessionGiven().message('!write_note {"text":"milk"}');
    expect(
      alwaysGrantsIn(
        decision.state,
        decision.events.map((r) => r.event),
      ),
    ).toEqual([]);
  });
});
