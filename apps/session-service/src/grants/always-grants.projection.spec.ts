import { REQUESTER, SessionGiven, SOMEONE_ELSE } from '../session/domain/testing/session-given';
import { alwaysGrantsIn } from './always-grants.projection';

describe('"Always allow" answers become grants of the person who gave them', () => {
  async function answered(optionKey: string, principal: 'user' | 'automation' = 'user') {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"milk"}', { principal });
    const sender = principal === 'automation' ? SOMEONE_ELSE : REQUESTER;
    const decision = await given.respond('call_2_1', optionKey, { sender });
    return {
      sessionId: decision.state.sessionId,
      at: decision.events[0]?.occurredAt,
      grants: alwaysGrantsIn(decision.state, decision.events),
    };
  }

  it('X2 an approve_always answer grants its tool to the approver, on that platform and workspace', async () => {
    const { sessionId, at, grants } = await answered('approve_always');
    expect(grants).toEqual([
      {
        platform: 'slack',
        workspaceId: 'T0001',
        personId: REQUESTER.id,
        toolName: 'write_note',
        clientId: '',
        grantedBy: REQUESTER,
        sessionId,
        grantedAt: at,
      },
    ]);
  });

  it('X2 on an automation prompt the grant is the answering member’s, not the workspace’s', async () => {
    const { grants } = await answered('approve_always', 'automation');
    expect(grants.map((g) => g.personId)).toEqual([SOMEONE_ELSE.id]);
  });

  it.each(['approve_once', 'approve_session', 'deny'])('%s grants nothing', async (optionKey) => {
    expect((await answered(optionKey)).grants).toEqual([]);
  });

  it('a decision without an answer grants nothing', async () => {
    const decision = await new SessionGiven().message('!write_note {"text":"milk"}');
    expect(alwaysGrantsIn(decision.state, decision.events)).toEqual([]);
  });
});
