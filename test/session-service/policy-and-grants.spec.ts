import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Conversation, deriveSessionId, type Person } from '@tollgate/protocol';
import { OPENAI_FAKE_KEY, OpenAiApiFake } from '@tollgate/platform-standins';
import { alice, bob, freshConversation, response, userMessage } from '../support/commands';
import { TEST_DATABASE_URL } from '../support/database';
import { is, TEST_NATS_URL } from '../support/nats';
import { startService } from '../support/service-process';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { uniqueToken } from '../support/unique';

/** `echo` refused outright; `write_note` asks, offering three options in a scrambled order. */
const POLICY_YAML = [
  '# Tollgate tool policy for the policy-and-grants suite',
  'tools:',
  '  echo:',
  '    mode: deny',
  '  write_note:',
  '    mode: approval',
  '    options: [deny, approve_always, approve_session]',
  '',
].join('\n');

/** Each test gets its own workspace, so one test's "Always allow" cannot leak into another. */
function conversationInOwnWorkspace(): Conversation {
  return { ...freshConversation(), workspaceId: uniqueToken('W').slice(0, 20) };
}

function otherThreadOf(conversation: Conversation): Conversation {
  return { ...freshConversation(), workspaceId: conversation.workspaceId };
}

describe('session service with a TOOL_POLICY_FILE: policy modes, offered options and grants (process)', () => {
  let dir: string;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, POLICY_YAML);
    service = await SessionServiceFixture.create('policy', { TOOL_POLICY_FILE: policyFile });
  });

  afterAll(async () => {
    await service?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function promptFor(
    conversation: Conversation,
    text: string,
    callId = 'call_2_1',
    sender: Person = alice,
  ) {
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, `!write_note {"text":"${text}"}`, { sender }));
    const [request] = await service.outputs.waitForOutputs('the prompt', is.request(callId), {
      sessionId,
    });
    return request;
  }

  it('a deny-mode tool is refused by policy and never runs', async () => {
    const conversation = conversationInOwnWorkspace();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!echo {"text":"hi"}'));
    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('echo:'), {
      sessionId,
    });
    expect(reply.text).toBe('echo: refused by policy');
    const journal = await service.journal(sessionId);
    expect(journal.map((e) => e.type)).not.toContain('ToolExecutionStarted');
    expect(journal.find((e) => e.type === 'ToolCallRecorded')?.data).toMatchObject({
      outcome: 'refused_by_policy',
    });
    expect(service.outputs.outputs(sessionId).filter(is.request())).toHaveLength(0);
  });

  it('the prompt offers exactly the options the policy lists, in canonical order', async () => {
    const conversation = conversationInOwnWorkspace();
    const request = await promptFor(conversation, 'options');
    expect(request.options).toEqual([
      { key: 'approve_session', label: 'Allow in this chat', style: 'default' },
      { key: 'approve_always', label: 'Always allow', style: 'default' },
      { key: 'deny', label: 'Deny', style: 'danger' },
    ]);

    // An option the policy leaves out is refused, and the prompt stays pending.
    const sessionId = deriveSessionId(conversation);
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs(
      'the refusal',
      is.rejected('option_unavailable', 'call_2_1'),
      { sessionId },
    );
    expect(service.outputs.outputs(sessionId).filter(is.resolved())).toHaveLength(0);
  });

  it('X2 "Allow in this chat" runs the approver\'s next call in the same chat unasked, not another person\'s, not in another chat', async () => {
    const conversation = conversationInOwnWorkspace();
    const sessionId = deriveSessionId(conversation);
    await promptFor(conversation, 'first');
    await service.send(response(conversation, 'call_2_1', 'approve_session'));
    await service.outputs.waitForOutputs('the first reply', is.text('write_note: 1'), {
      sessionId,
    });

    await service.send(userMessage(conversation, '!write_note {"text":"second"}'));
    await service.outputs.waitForOutputs('the second reply', is.text('write_note: 2'), {
      sessionId,
    });
    expect(service.outputs.outputs(sessionId).filter(is.request())).toHaveLength(1);

    // Bob in the same chat is asked: the grant is Alice's.
    await service.send(userMessage(conversation, '!write_note {"text":"bob"}', { sender: bob }));
    const [bobs] = await service.outputs.waitForOutputs("Bob's prompt", is.request('call_15_1'), {
      sessionId,
    });
    expect(bobs.requester).toEqual(bob);

    const elsewhere = otherThreadOf(conversation);
    await promptFor(elsewhere, 'elsewhere');
  });

  it('X2 Slack: Alice\'s "Always allow" covers Alice in another channel of the workspace, not Bob there, not an automation request', async () => {
    const conversation = conversationInOwnWorkspace();
    const sessionId = deriveSessionId(conversation);
    await promptFor(conversation, 'always');
    await service.send(response(conversation, 'call_2_1', 'approve_always'));
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), { sessionId });

    const sameWorkspace = otherThreadOf(conversation);
    const otherSession = deriveSessionId(sameWorkspace);
    await service.send(userMessage(sameWorkspace, '!write_note {"text":"no prompt"}'));
    await service.outputs.waitForOutputs('the unprompted reply', is.text('write_note: 1'), {
      sessionId: otherSession,
    });
    expect(service.outputs.outputs(otherSession).filter(is.request())).toHaveLength(0);
    const journal = await service.journal(otherSession);
    expect(journal.map((e) => e.type)).not.toContain('ToolApprovalRequested');

    // Bob, in that same channel of the same workspace, is asked.
    await service.send(userMessage(sameWorkspace, '!write_note {"text":"bob"}', { sender: bob }));
    const [bobs] = await service.outputs.waitForOutputs("Bob's prompt", is.request('call_8_1'), {
      sessionId: otherSession,
    });
    expect(bobs.requester).toEqual(bob);
    expect(service.outputs.outputs(otherSession).filter(is.text('write_note: 2'))).toEqual([]);

    // No person asked an automation request, so no one's grant covers it.
    const automated = otherThreadOf(conversation);
    await service.send(
      userMessage(automated, '!write_note {"text":"cron"}', { principal: 'automation' }),
    );
    const [cron] = await service.outputs.waitForOutputs('the automation prompt', is.request(), {
      sessionId: deriveSessionId(automated),
    });
    expect(cron.principal).toBe('automation');

    // The grant is the workspace's and Alice's: another workspace asks her again.
    await promptFor(conversationInOwnWorkspace(), 'other workspace');
  });

  it('X2 Discord DMs: Alice\'s "Always allow" in her DM does not run the tool unasked in Bob\'s DM; it does in her next DM request', async () => {
    // Discord DMs have workspace id "": one key for every DM with the bot.
    const dm = (person: Person): Conversation => ({
      platform: 'discord',
      workspaceId: '',
      channelId: `D${uniqueToken(person.id)}`,
      threadId: '',
    });
    const dmAlice = { id: uniqueToken('alice'), displayName: 'Alice' };
    const dmBob = { id: uniqueToken('bob'), displayName: 'Bob' };
    const aliceDm = dm(dmAlice);
    const aliceSession = deriveSessionId(aliceDm);
    await promptFor(aliceDm, 'alice', 'call_2_1', dmAlice);
    await service.send(response(aliceDm, 'call_2_1', 'approve_always', { sender: dmAlice }));
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), {
      sessionId: aliceSession,
    });

    const bobDm = dm(dmBob);
    const bobs = await promptFor(bobDm, 'bob', 'call_2_1', dmBob);
    expect(bobs.requester).toEqual(dmBob);
    const bobJournal = await service.journal(deriveSessionId(bobDm));
    expect(bobJournal.map((e) => e.type)).not.toContain('ToolExecutionStarted');

    await service.send(userMessage(aliceDm, '!write_note {"text":"again"}', { sender: dmAlice }));
    await service.outputs.waitForOutputs('the unprompted reply', is.text('write_note: 2'), {
      sessionId: aliceSession,
    });
    expect(service.outputs.outputs(aliceSession).filter(is.request())).toHaveLength(1);
  });
});

describe('session service start with a bad TOOL_POLICY_FILE (process)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-bad-policy-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [
      'an unknown mode',
      'policy.yaml',
      'tools:\n  echo:\n    mode: auto\n  write_note:\n    mode: ask\n',
      5,
    ],
    [
      'a tool the service lacks',
      'policy.json',
      '{\n  "tools": {\n    "rm_rf": { "mode": "auto" }\n  }\n}\n',
      3,
    ],
  ])(
    'exits 1 naming the variable, the file and the line of %s',
    async (_case, name, text, line) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      const child = await startService('session-service', {
        NATS_URL: TEST_NATS_URL,
        DATABASE_URL: TEST_DATABASE_URL,
        TOLLGATE_SUBJECT_PREFIX: uniqueToken('badpolicy').slice(0, 24),
        TOOL_POLICY_FILE: file,
      });
      expect((await child.exited()).code).toBe(1);
      expect(child.output()).toContain(`TOOL_POLICY_FILE: ${file} line ${line}: tools.`);
    },
  );
});

describe('session service with MODEL_PROVIDER=openai against a fake chat-completions API (process)', () => {
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    api = await OpenAiApiFake.start({ apiKey: OPENAI_FAKE_KEY });
    service = await SessionServiceFixture.create('openai', {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: api.baseUrl,
      OPENAI_API_KEY: OPENAI_FAKE_KEY,
      MODEL: 'gpt-fake',
    });
  });

  afterAll(async () => {
    await service?.dispose();
    await api?.stop();
  });

  it('a model tool call is approved, run, and its result sent back for the final answer', async () => {
    api.script(
      {
        content: 'I will write that down.',
        toolCalls: [{ id: 'call_oa1', name: 'write_note', arguments: '{"text":"buy milk"}' }],
      },
      { content: 'Noted: buy milk.' },
    );
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, 'Please remember to buy milk'));
    const [request] = await service.outputs.waitForOutputs('the prompt', is.request('call_oa1'), {
      sessionId,
    });
    expect(request.displayText).toContain('buy milk');

    await service.send(response(conversation, 'call_oa1', 'approve_once'));
    const [reply] = await service.outputs.waitForOutputs('the answer', is.text('Noted'), {
      sessionId,
    });
    expect(reply).toMatchObject({ text: 'Noted: buy milk.', role: 'assistant' });

    const [opening, afterTool] = api.completionRequests;
    expect(opening?.model).toBe('gpt-fake');
    expect(opening?.messages).toEqual([{ role: 'user', content: 'Please remember to buy milk' }]);
    expect(opening?.tools?.map((t) => t.function.name).sort()).toEqual([
      'delegate',
      'echo',
      'write_note',
    ]);
    expect(afterTool?.messages).toEqual([
      { role: 'user', content: 'Please remember to buy milk' },
      {
        role: 'assistant',
        content: 'I will write that down.',
        tool_calls: [
          {
            id: 'call_oa1',
            type: 'function',
            function: { name: 'write_note', arguments: '{"text":"buy milk"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_oa1', content: '1' },
    ]);
    expect(api.requests.every((r) => r.authorization === `Bearer ${OPENAI_FAKE_KEY}`)).toBe(true);
  });

  it('an API error fails the turn with a notice, and the key never reaches the log', async () => {
    api.script({ status: 500, body: '{"error":{"message":"upstream overloaded"}}' });
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, 'hello?'));
    const [notice] = await service.outputs.waitForOutputs('the notice', is.text('turn failed'), {
      sessionId,
    });
    expect(notice.role).toBe('notice');
    expect(notice.text).toContain('the model API answered 500');
    const journal = await service.journal(sessionId);
    expect(journal.at(-1)).toMatchObject({ type: 'TurnFailed' });
    expect(service.process?.output()).not.toContain(OPENAI_FAKE_KEY);
  });
});
