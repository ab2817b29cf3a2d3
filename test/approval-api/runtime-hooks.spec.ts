import type { ApprovalRequest } from '@tollgate/protocol';
import { ApprovalApiSystem, approvedBy, deniedBy } from '../support/approval-api.fixture';
import { waitFor } from '../support/wait-for';

/** A PermissionRequest hook input as Claude Code's hooks reference shows it. */
const CLAUDE_PERMISSION_REQUEST = {
  session_id: 'abc123',
  transcript_path:
    '/Users/me/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl',
  cwd: '/Users/me/my-project',
  permission_mode: 'default',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: {
    command: 'rm -rf node_modules',
    description: 'Remove node_modules directory',
  },
  permission_suggestions: [
    {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'rm -rf node_modules' }],
      behavior: 'allow',
      destination: 'localSettings',
    },
  ],
};

/** A PreToolUse hook input as Claude Code's hooks reference shows it. */
const CLAUDE_PRE_TOOL_USE = {
  session_id: 'abc123',
  transcript_path:
    '/Users/me/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl',
  cwd: '/Users/me/my-project',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: '/Users/me/my-project/notes.txt', content: 'hello' },
  tool_use_id: 'toolu_01ABC123',
};

/** Codex's PermissionRequest command-hook input (its published input schema's fields). */
const CODEX_PERMISSION_REQUEST = {
  session_id: '0199a213-81c0-7800-8aa1-bbab2a035a53',
  transcript_path: null,
  cwd: '/home/me/repo',
  hook_event_name: 'PermissionRequest',
  model: 'gpt-5-codex',
  permission_mode: 'default',
  turn_id: 'turn-7',
  tool_name: 'Bash',
  tool_input: { command: 'cargo publish', description: 'Publish the crate' },
};

/**
 * A5 (Claude Code) and A6 (Codex): their hook bodies round-trip through the built approval-api
 * to allow and to deny, and a hold that ends undecided withdraws the approval and denies.
 * TOLLGATE_HOOK_HOLD_S is 2 here so the undecided case ends quickly.
 */
describe('A5/A6 — runtime hooks (process)', () => {
  let system: ApprovalApiSystem;
  let key: string;
  let clientId: string;

  beforeAll(async () => {
    system = await ApprovalApiSystem.start('a5hooks', { env: { TOLLGATE_HOOK_HOLD_S: '2' } });
    const made = await system.createClient({ name: 'laptop' });
    key = made.key;
    clientId = made.client.id;
    await system.clients.update(clientId, {
      addConversations: [{ channelId: 'C_OPS', threadId: '' }],
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  /** Posts the hook and returns its answer later, with the approval it created. */
  async function ask(path: string, body: unknown) {
    const before = new Set(
      (await system.query<{ id: string }>('SELECT id FROM approvals')).map((row) => row.id),
    );
    const answer = system.call('POST', path, { key, body });
    const request: ApprovalRequest = await waitFor('the hook to create its approval', async () => {
      const rows = await system.query<{ id: string }>('SELECT id FROM approvals');
      const fresh = rows.find((row) => !before.has(row.id));
      return fresh === undefined ? undefined : system.publishedRequest(fresh.id);
    });
    return { answer, request };
  }

  it('A5 a Claude Code PermissionRequest from its docs is allowed once approved in chat', async () => {
    const { answer, request } = await ask('/v1/hooks/claude-code', CLAUDE_PERMISSION_REQUEST);
    expect(request).toMatchObject({
      tool: 'Bash',
      arguments: CLAUDE_PERMISSION_REQUEST.tool_input,
      summary: 'Remove node_modules directory',
      caller: { name: 'claude-code', session: 'abc123' },
    });
    await system.decide(request, 'approved', approvedBy('U_ALICE', 'Alice'));
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });

  it('A5 a Claude Code PermissionRequest denied in chat answers deny "Denied by <name> in <platform>"', async () => {
    const { answer, request } = await ask('/v1/hooks/claude-code', CLAUDE_PERMISSION_REQUEST);
    await system.decide(request, 'denied', deniedBy('U_BOB', 'Bob'));
    expect((await answer).body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied by Bob in Slack' },
      },
    });
  });

  it('A5 a Claude Code PreToolUse gets permissionDecision allow or deny, never updatedInput', async () => {
    const allowed = await ask('/v1/hooks/claude-code', CLAUDE_PRE_TOOL_USE);
    await system.decide(allowed.request, 'approved', approvedBy('U_ALICE'));
    expect((await allowed.answer).body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved in chat through Tollgate',
      },
    });
    const denied = await ask('/v1/hooks/claude-code', CLAUDE_PRE_TOOL_USE);
    await system.decide(denied.request, 'denied', deniedBy('U_ALICE', 'Alice', 'not today'));
    expect((await denied.answer).body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'Denied by Alice in Slack: not today',
      },
    });
  });

  it('A5 a hold that ends undecided withdraws the approval and denies: no one answered in chat', async () => {
    const { answer, request } = await ask('/v1/hooks/claude-code', CLAUDE_PERMISSION_REQUEST);
    const answered = await answer;
    expect(answered.status).toBe(200);
    const output = answered.body.hookSpecificOutput as {
      decision: { behavior: string; message: string };
    };
    expect(output.decision.behavior).toBe('deny');
    expect(output.decision.message).toMatch(/No one answered in chat/);
    expect(await system.cancelPublished(request)).toBe(true);
    const read = await system.call('GET', `/v1/approvals/${request.approvalId}`, { key });
    expect(read.body.status).toBe('cancelled');
  });

  it('A5 channel, thread and approver in the hook URL narrow the route; others are refused', async () => {
    const { answer, request } = await ask(
      '/v1/hooks/claude-code?channel=C_OPS&thread=1700.1&approver=U_BOB',
      CLAUDE_PERMISSION_REQUEST,
    );
    expect(request.conversation).toMatchObject({ channelId: 'C_OPS', threadId: '1700.1' });
    expect(request.approvers).toEqual([{ id: 'U_BOB' }]);
    await system.decide(request, 'approved', approvedBy('U_BOB'));
    expect((await answer).status).toBe(200);
    const refused = await system.call('POST', '/v1/hooks/claude-code?channel=C_ELSEWHERE', {
      key,
      body: CLAUDE_PERMISSION_REQUEST,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('route_not_allowed');
    const unknownEvent = await system.call('POST', '/v1/hooks/claude-code', {
      key,
      body: { ...CLAUDE_PERMISSION_REQUEST, hook_event_name: 'PostToolUse' },
    });
    expect(unknownEvent.status).toBe(400);
    expect(unknownEvent.body.error).toBe('invalid_hook_body');
  });

  it('A6 a Codex PermissionRequest round-trips to allow and to deny', async () => {
    const allowed = await ask('/v1/hooks/codex', CODEX_PERMISSION_REQUEST);
    expect(allowed.request).toMatchObject({
      tool: 'Bash',
      arguments: CODEX_PERMISSION_REQUEST.tool_input,
      caller: { name: 'codex', session: CODEX_PERMISSION_REQUEST.session_id },
    });
    await system.decide(allowed.request, 'approved', approvedBy('U_ALICE'));
    expect((await allowed.answer).body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    const denied = await ask('/v1/hooks/codex', CODEX_PERMISSION_REQUEST);
    await system.decide(denied.request, 'denied', deniedBy('U_ALICE', 'Alice'));
    expect((await denied.answer).body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied by Alice in Slack' },
      },
    });
  });

  it('A6 a Codex hold that ends undecided withdraws the approval and denies', async () => {
    const { answer, request } = await ask('/v1/hooks/codex', CODEX_PERMISSION_REQUEST);
    const output = (await answer).body.hookSpecificOutput as {
      decision: { behavior: string; message: string };
    };
    expect(output.decision.behavior).toBe('deny');
    expect(output.decision.message).toMatch(/No one answered in chat/);
    expect(await system.cancelPublished(request)).toBe(true);
  });
});
