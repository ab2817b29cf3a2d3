import type { Msg, Subscription } from '@nats-io/nats-core';
import {
  type Click,
  decidePrompt,
  ForwardClick,
  ForwardMessage,
  HasSession,
  JetStreamCommandPublisher,
} from '@tollgate/binding-core';
import {
  type Command,
  deriveAgentSessionId,
  deriveSessionId,
  parseCommand,
} from '@tollgate/protocol';
import { alice, bob, freshConversation } from '../../support/commands';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';
import { BindingHarness } from './binding-harness';
import { promptOutputs } from './prompt-outputs';

const NOW = new Date('2026-01-02T03:04:05.000Z');

interface SeenCommand {
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly command: Command;
}

/**
 * Clicks and messages become commands on <PREFIX>_CMD. The command stream is a work queue
 * with the session service as its only consumer, so the test watches with a core subscription.
 */
describe('binding core: inbound clicks and messages', () => {
  let harness: BindingHarness;
  let subscription: Subscription;
  const seen: SeenCommand[] = [];
  const malformed: string[] = [];
  let forwardClick: ForwardClick;
  let forwardMessage: ForwardMessage;
  let hasSession: HasSession;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcorein');
    subscription = harness.nats.nc.subscribe(`${harness.prefix}.cmd.>`, {
      callback: (error: Error | null, msg: Msg) => {
        if (error) return;
        const parsed = parseCommand(msg.data);
        if (!parsed.ok) {
          malformed.push(`${msg.subject}: ${parsed.reason} ${parsed.detail}`);
          return;
        }
        seen.push({
          subject: msg.subject,
          msgId: msg.headers?.get('Nats-Msg-Id'),
          command: parsed.value,
        });
      },
    });
    const commands = new JetStreamCommandPublisher(harness.subjects, async () => harness.publisher);
    forwardClick = new ForwardClick({
      platform: 'slack',
      prompts: harness.prompts,
      commands,
      now: () => NOW,
    });
    forwardMessage = new ForwardMessage({
      sessions: harness.sessions,
      prompts: harness.prompts,
      adapter: harness.adapter,
      commands,
      now: () => NOW,
    });
    hasSession = new HasSession(harness.sessions);
  });

  afterEach(() => {
    expect(malformed).toEqual([]);
  });

  afterAll(async () => {
    subscription.unsubscribe();
    await harness.close();
  });

  /**
   * Proves nothing else was published: a sentinel sent afterwards on the same connection
   * arrives after anything published before it.
   */
  async function expectNoCommand(commandId: string): Promise<void> {
    const sentinel = `sentinel-${commandId}`;
    await forwardMessage.execute(
      {
        conversation: freshConversation(),
        sender: alice,
        text: 'sentinel',
        commandId: sentinel,
      },
      { receivedAt: Date.now() },
    );
    await waitFor('the sentinel', () => seen.some((s) => s.command.id === sentinel));
    expect(seen.filter((s) => s.command.id === commandId)).toEqual([]);
  }

  /** A prompt the binding has posted, as the journal holds it. */
  async function postedPrompt() {
    const p = promptOutputs();
    const claim = await harness.prompts.claim(
      { key: p.key, conversation: p.conversation, owner: 'test', leaseMs: 5_000 },
      (state) => decidePrompt(state, p.request(3)),
    );
    if (claim.kind !== 'claimed' || claim.decision.kind !== 'post') throw new Error(claim.kind);
    const ref = await harness.adapter.postPrompt(claim.target, claim.decision.view);
    await harness.prompts.complete(claim.lease, [
      {
        type: 'PendingApprovalPromptTracked',
        seq: 3,
        request: p.request(3),
        messageRef: ref,
        shown: 'pending',
      },
    ]);
    return { ...p, ref };
  }

  it('B2 a click becomes one ToolInteractionResponse on <prefix>.cmd.<platform>.<sessionId>.response, keyed by the command id', async () => {
    const p = await postedPrompt();
    const click: Click = {
      promptRef: p.promptRef,
      optionKey: 'approve_once',
      clicker: bob,
      commandId: '1700000100.000200:U_BOB',
      messageRef: p.ref,
    };

    const result = await forwardClick.execute(click, { receivedAt: Date.now() });

    const expected = {
      type: 'ToolInteractionResponse',
      v: 1,
      id: click.commandId,
      sessionId: p.sessionId,
      conversation: p.conversation,
      occurredAt: NOW.toISOString(),
      callId: p.callId,
      optionKey: 'approve_once',
      sender: bob,
      promptRef: p.ref.messageId,
    };
    expect(result).toEqual({ kind: 'forwarded', command: expected });
    const [command] = await waitFor('the response command', () =>
      seen.filter((s) => s.command.id === click.commandId).length === 1
        ? seen.filter((s) => s.command.id === click.commandId)
        : undefined,
    );
    expect(command).toEqual({
      subject: `${harness.prefix}.cmd.${p.conversation.platform}.${p.sessionId}.response`,
      msgId: click.commandId,
      command: expected,
    });
    // The session answers; the click itself never touches the prompt.
    expect(harness.adapter.editsFor(p.promptRef)).toEqual([]);
  });

  it('a click on a reference no prompt carries is reported, and nothing is published', async () => {
    expect(
      await forwardClick.execute(
        {
          promptRef: 'abcdef0123456789abcdef01',
          optionKey: 'approve_once',
          clicker: bob,
          commandId: 'unknown-1',
        },
        { receivedAt: Date.now() },
      ),
    ).toEqual({ kind: 'unknown_prompt', promptRef: 'abcdef0123456789abcdef01' });
    expect(
      await forwardClick.execute(
        {
          promptRef: 'not a ref!',
          optionKey: 'approve_once',
          clicker: bob,
          commandId: 'unknown-2',
        },
        { receivedAt: Date.now() },
      ),
    ).toEqual({ kind: 'unknown_prompt', promptRef: 'not a ref!' });
    await expectNoCommand('unknown-1');
    await expectNoCommand('unknown-2');
  });

  it('a click that cannot make a valid command is refused with a reason, and nothing is published', async () => {
    const p = await postedPrompt();

    const result = await forwardClick.execute(
      {
        promptRef: p.promptRef,
        optionKey: 'x'.repeat(65),
        clicker: bob,
        commandId: 'too-long-1',
      },
      { receivedAt: Date.now() },
    );

    expect(result).toMatchObject({ kind: 'refused', reason: 'invalid_payload' });
    await expectNoCommand('too-long-1');
  });

  it('a message becomes a UserMessage and its thread then has a session', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    expect(await hasSession.execute(conversation)).toBe(false);

    const result = await forwardMessage.execute(
      {
        conversation,
        sender: alice,
        text: 'hello',
        commandId: 'Ev0001',
        principal: 'automation',
      },
      { receivedAt: Date.now() },
    );

    expect(result).toMatchObject({ kind: 'forwarded' });
    const [command] = await waitFor('the message command', () => {
      const found = seen.filter((s) => s.command.id === 'Ev0001');
      return found.length === 1 ? found : undefined;
    });
    expect(command).toEqual({
      subject: `${harness.prefix}.cmd.${conversation.platform}.${sessionId}.message`,
      msgId: 'Ev0001',
      command: {
        type: 'UserMessage',
        v: 1,
        id: 'Ev0001',
        sessionId,
        conversation,
        occurredAt: NOW.toISOString(),
        sender: alice,
        text: 'hello',
        principal: 'automation',
      },
    });
    expect(await hasSession.execute(conversation)).toBe(true);
    expect(await hasSession.execute(freshConversation())).toBe(false);
  });

  it('a message over the text limit is refused and remembers nothing', async () => {
    const conversation = freshConversation();

    const result = await forwardMessage.execute(
      {
        conversation,
        sender: alice,
        text: 'x'.repeat(40_001),
        commandId: 'Ev-too-long',
      },
      { receivedAt: Date.now() },
    );

    expect(result).toMatchObject({ kind: 'refused', reason: 'invalid_payload' });
    expect(await hasSession.execute(conversation)).toBe(false);
    await expectNoCommand('Ev-too-long');
  });

  describe('B16 — answers typed as text', () => {
    /** Prompts handled as the binding handles their requests: posted and journaled pending. */
    async function trackedPrompts(...callIds: string[]) {
      const conversation = freshConversation();
      const handle = harness.handleOutput();
      const prompts = callIds.map((callId) => promptOutputs(callId, conversation));
      for (const [i, p] of prompts.entries()) await handle.execute(p.request(3 + i));
      return prompts;
    }

    it('B16 the requester’s answer word becomes one ToolInteractionResponse with the message’s own id and the sender', async () => {
      const [p] = await trackedPrompts('call_3_1');
      const [posted] = await harness.prompts.pendingIn(p.sessionId);
      const commandId = `slack:T1:C1:${Date.now()}.000100`;

      const result = await forwardMessage.execute(
        {
          conversation: p.conversation,
          sender: alice,
          text: 'Approve!',
          commandId,
        },
        { receivedAt: Date.now() },
      );

      const expected = {
        type: 'ToolInteractionResponse',
        v: 1,
        id: commandId,
        sessionId: p.sessionId,
        conversation: p.conversation,
        occurredAt: NOW.toISOString(),
        callId: p.callId,
        optionKey: 'approve_once',
        sender: alice,
        promptRef: posted.messageRef.messageId,
        via: 'text',
      };
      expect(result).toEqual({ kind: 'answered', command: expected });
      const [command] = await waitFor('the response command', () => {
        const found = seen.filter((s) => s.command.id === commandId);
        return found.length === 1 ? found : undefined;
      });
      expect(command).toEqual({
        subject: `${harness.prefix}.cmd.slack.${p.sessionId}.response`,
        msgId: commandId,
        command: expected,
      });
      // Answering changes no prompt: only the session's answer does.
      expect(harness.adapter.editsFor(p.promptRef)).toEqual([]);
    });

    it('B16 the same message delivered again is the same command, even once its prompt is gone', async () => {
      const [p] = await trackedPrompts('call_3_1');
      const message = {
        conversation: p.conversation,
        sender: alice,
        text: 'no',
        commandId: `slack:T1:C1:${Date.now()}.000200`,
      };
      const first = await forwardMessage.execute(message, { receivedAt: Date.now() });
      expect(first).toMatchObject({ kind: 'answered', command: { optionKey: 'deny' } });
      // The session resolved it and the binding cleared it; then the platform redelivers.
      await harness.handleOutput().execute(p.resolved(9));
      expect(await harness.prompts.pendingIn(p.sessionId)).toEqual([]);
      const again = await forwardMessage.execute(message, { receivedAt: Date.now() });
      // Read as a message now, but under the same id: the session's ledger drops it.
      expect(again).toMatchObject({ kind: 'forwarded', command: { id: message.commandId } });
    });

    it('B16 several pending prompts: a private hint to the sender, nothing published', async () => {
      const [p] = await trackedPrompts('call_3_1', 'call_3_2');
      const commandId = `slack:T1:C1:${Date.now()}.000300`;

      const result = await forwardMessage.execute(
        {
          conversation: p.conversation,
          sender: alice,
          text: 'yes',
          commandId,
        },
        { receivedAt: Date.now() },
      );

      expect(result).toMatchObject({ kind: 'hinted', reason: 'several_prompts', sent: true });
      const hints = harness.adapter
        .noticesTo(alice.id)
        .filter((n) => n.conversation.channelId === p.conversation.channelId);
      expect(hints).toHaveLength(1);
      expect(hints[0].text).toContain('2 requests');
      await expectNoCommand(commandId);
      expect(await harness.prompts.pendingIn(p.sessionId)).toHaveLength(2);
    });

    it('B16 a word for an option the prompt does not offer: a hint naming the offered answers, nothing published', async () => {
      const [p] = await trackedPrompts('call_3_1');
      const commandId = `slack:T1:C1:${Date.now()}.000400`;

      const result = await forwardMessage.execute(
        {
          conversation: p.conversation,
          sender: alice,
          text: 'always',
          commandId,
        },
        { receivedAt: Date.now() },
      );

      expect(result).toMatchObject({ kind: 'hinted', reason: 'option_not_offered', sent: true });
      const [hint] = harness.adapter
        .noticesTo(alice.id)
        .filter((n) => n.conversation.channelId === p.conversation.channelId);
      expect(hint.text).toContain('"approve", "deny"');
      await expectNoCommand(commandId);
    });

    it('B16 with no prompt pending, or from an automation, an answer word is an ordinary message', async () => {
      const conversation = freshConversation();
      await expect(
        forwardMessage.execute(
          { conversation, sender: alice, text: 'ok', commandId: 'Ev-b16-1' },
          { receivedAt: Date.now() },
        ),
      ).resolves.toMatchObject({ kind: 'forwarded', command: { type: 'UserMessage', text: 'ok' } });
      const [p] = await trackedPrompts('call_3_1');
      await expect(
        forwardMessage.execute(
          {
            conversation: p.conversation,
            sender: alice,
            text: 'approve',
            commandId: 'Ev-b16-2',
            principal: 'automation',
          },
          { receivedAt: Date.now() },
        ),
      ).resolves.toMatchObject({ kind: 'forwarded', command: { type: 'UserMessage' } });
    });

    it('B16 the journal lists a session’s pending prompts only', async () => {
      const [a, b] = await trackedPrompts('call_3_1', 'call_3_2');
      await trackedPrompts('call_3_1');
      await harness.handleOutput().execute(b.abandoned(9));
      const pending = await harness.prompts.pendingIn(a.sessionId);
      expect(pending.map((x) => x.key)).toEqual([a.key]);
      expect(pending[0].request).toEqual(a.request(3));
      expect(pending[0].conversation).toEqual(a.conversation);
    });
  });

  describe('A2 — approval API prompts', () => {
    const carol = { id: 'U_CAROL', displayName: 'Carol' };

    async function apiPrompt(conversation = freshConversation()) {
      const sessionId = deriveAgentSessionId(
        'slack',
        'cli_0123456789abcdef01234567',
        uniqueToken('agent'),
      );
      const p = promptOutputs('apr_0123456789abcdefghijklmnop', conversation, {
        sessionId,
        approvers: [bob, carol],
      });
      await harness.handleOutput().execute(p.request(3));
      return p;
    }

    it('A2 a click on an agent session’s prompt is sent with that session id, on the route platform’s subject', async () => {
      const p = await apiPrompt();
      const result = await forwardClick.execute(
        {
          promptRef: p.promptRef,
          optionKey: 'approve_once',
          clicker: carol,
          commandId: `click-a2-${Date.now()}`,
        },
        { receivedAt: Date.now() },
      );
      expect(result).toMatchObject({
        kind: 'forwarded',
        command: { sessionId: p.sessionId, callId: p.callId, sender: carol },
      });
      if (result.kind !== 'forwarded') throw new Error(result.kind);
      const [command] = await waitFor('the response', () => {
        const found = seen.filter((s) => s.command.id === result.command.id);
        return found.length === 1 ? found : undefined;
      });
      expect(command.subject).toBe(`${harness.prefix}.cmd.slack.${p.sessionId}.response`);
    });

    it('A2 an approver’s typed answer answers the agent session’s prompt in that conversation, marked as text', async () => {
      const p = await apiPrompt();
      const commandId = `slack:T1:C1:${Date.now()}.000700`;
      const result = await forwardMessage.execute(
        {
          conversation: p.conversation,
          sender: carol,
          text: 'deny',
          commandId,
        },
        { receivedAt: Date.now() },
      );
      expect(result).toMatchObject({
        kind: 'answered',
        command: {
          sessionId: p.sessionId,
          callId: p.callId,
          optionKey: 'deny',
          sender: carol,
          via: 'text',
        },
      });
      await waitFor('the answer', () => seen.some((s) => s.command.id === commandId));
    });

    it('A2 someone who is not an approver types an answer word: it is an ordinary message', async () => {
      const p = await apiPrompt();
      await expect(
        forwardMessage.execute(
          {
            conversation: p.conversation,
            sender: alice,
            text: 'yes',
            commandId: `slack:T1:C1:${Date.now()}.000800`,
          },
          { receivedAt: Date.now() },
        ),
      ).resolves.toMatchObject({
        kind: 'forwarded',
        command: { type: 'UserMessage', sessionId: deriveSessionId(p.conversation) },
      });
    });

    it('A2 an approver of the API prompt answers it, though someone else’s chat prompt waits there too', async () => {
      const conversation = freshConversation();
      await apiPrompt(conversation);
      await harness.handleOutput().execute(promptOutputs('call_3_1', conversation).request(3));
      // alice requested the chat prompt; bob is an approver of the API prompt only.
      await expect(
        forwardMessage.execute(
          {
            conversation,
            sender: bob,
            text: 'yes',
            commandId: `slack:T1:C1:${Date.now()}.000900`,
          },
          { receivedAt: Date.now() },
        ),
      ).resolves.toMatchObject({
        kind: 'answered',
        command: { callId: 'apr_0123456789abcdefghijklmnop' },
      });
    });
  });
});
