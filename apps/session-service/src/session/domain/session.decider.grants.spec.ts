import type { Conversation } from '@tollgate/protocol';
import { conversation } from '../../../../../libs/protocol/src/testing/message-fixtures';
import {
  defaultDeps,
  eventTypes,
  outputKinds,
  outputsOf,
  replyOf,
  REQUESTER,
  SessionGiven,
  SOMEONE_ELSE,
} from './testing/session-given';
import type { ToolGrants } from './tool-grants.port';

/** "Always allow" as a set of person/tool pairs, remembering who it was asked about. */
class GrantsHeldBy implements ToolGrants {
  readonly asked: { conversation: Conversation; personId: string; toolName: string }[] = [];
  constructor(private readonly held: readonly string[]) {}

  async isAlwaysAllowed(where: Conversation, personId: string, toolName: string): Promise<boolean> {
    this.asked.push({ conversation: where, personId, toolName });
    return this.held.includes(`${personId}/${toolName}`);
  }
}

describe('X2 — grants belong to a person', () => {
  it('X2 approve_session covers its approver in this chat, not another person in the same chat', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}');
    await session.respond('call_2_1', 'approve_session');

    const bob = await session.message('!write_note {"text":"b"}', { sender: SOMEONE_ELSE });
    const [prompt] = outputsOf(bob.outputs, 'ToolInteractionRequest');
    expect(prompt).toMatchObject({ toolName: 'write_note', requester: SOMEONE_ELSE });
    expect(session.notes).toEqual(['a']);

    // Bob's prompt is superseded by Ada's next message, which runs unasked.
    const ada = await session.message('!write_note {"text":"c"}');
    expect(outputsOf(ada.outputs, 'ToolInteractionRequest')).toEqual([]);
    expect(replyOf(ada)).toBe('write_note: 2');
    expect(session.notes).toEqual(['a', 'c']);
  });

  it('X2 approve_session on an automation prompt covers the member who answered, not the message’s sender', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}', { principal: 'automation' });
    await session.respond('call_2_1', 'approve_session', { sender: SOMEONE_ELSE });
    expect(session.state.sessionGrants).toEqual([
      { personId: SOMEONE_ELSE.id, toolName: 'write_note' },
    ]);

    const ada = await session.message('!write_note {"text":"b"}');
    expect(outputKinds(ada.outputs)).toEqual(['ToolInteractionRequest{call_9_1}']);
    await session.respond('call_9_1', 'deny');

    const bob = await session.message('!write_note {"text":"c"}', { sender: SOMEONE_ELSE });
    expect(replyOf(bob)).toBe('write_note: 2');
  });

  it('X2 an automation request never uses a session grant', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}');
    await session.respond('call_2_1', 'approve_session');

    const automated = await session.message('!write_note {"text":"b"}', {
      principal: 'automation',
    });

    expect(eventTypes(automated)).not.toContain('ToolExecutionStarted');
    expect(outputsOf(automated.outputs, 'ToolInteractionRequest')).toMatchObject([
      { principal: 'automation', toolName: 'write_note' },
    ]);
  });

  it('X2 an automation request never uses an "Always allow" grant, even its sender’s', async () => {
    const grants = new GrantsHeldBy([`${REQUESTER.id}/write_note`]);
    const session = new SessionGiven({ ...defaultDeps(), grants });

    const automated = await session.message('!write_note {"text":"a"}', {
      principal: 'automation',
    });

    expect(outputKinds(automated.outputs)).toEqual(['ToolInteractionRequest{call_2_1}']);
    expect(grants.asked).toEqual([]);
  });

  it('X2 "Always allow" is looked up for the person whose message started the turn', async () => {
    const grants = new GrantsHeldBy([`${REQUESTER.id}/write_note`]);
    const session = new SessionGiven({ ...defaultDeps(), grants });

    const bob = await session.message('!write_note {"text":"b"}', { sender: SOMEONE_ELSE });
    expect(outputKinds(bob.outputs)).toEqual(['ToolInteractionRequest{call_2_1}']);
    await session.respond('call_2_1', 'deny', { sender: SOMEONE_ELSE });

    const ada = await session.message('!write_note {"text":"a"}');
    expect(outputsOf(ada.outputs, 'ToolInteractionRequest')).toEqual([]);
    expect(replyOf(ada)).toBe('write_note: 1');

    expect(grants.asked).toEqual([
      { conversation, personId: SOMEONE_ELSE.id, toolName: 'write_note' },
      { conversation, personId: REQUESTER.id, toolName: 'write_note' },
    ]);
  });
});
