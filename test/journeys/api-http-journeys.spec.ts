import type { ApprovalClient } from '@tollgate/approval-clients';
import type { Conversation, Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { ApiAnswer, ApprovalApiSystem } from '../support/approval-api.fixture';
import {
  type ApiJourneySystem,
  startApiJourneySystem,
} from '../support/api-journey-system.fixture';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { DecisionLog } from '../support/decisions';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

/**
 * (process) Issue 20's acceptance end to end over HTTP, on every platform: an agent calls the
 * built approval-api with a key made as the CLI makes it, the built session service prompts
 * through the built binding on the platform's stand-in, a person clicks or types, and the agent
 * reads the answer back by a long poll and by its signed webhook, then redeems it.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

interface Agent {
  readonly client: ApprovalClient;
  readonly key: string;
  readonly hook: string;
  readonly conversation: Conversation;
}

describe.each(platforms)('A1 — an outside agent over HTTP, whole system through %s', (platform) => {
  let system: ApiJourneySystem | undefined;
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;
  let approvals: ApprovalApiSystem;
  let webhooks: WebhookReceiver | undefined;
  let decisions: DecisionLog | undefined;

  beforeAll(async () => {
    webhooks = await WebhookReceiver.start();
    system = await startApiJourneySystem(platform, 'ah', {
      sessionEnv: { TOLLGATE_TIMER_POLL_MS: '200' },
      apiEnv: { TOLLGATE_WEBHOOK_RETRY_BASE_MS: '100' },
    });
    ({ driver, session, binding, approvals } = system);
    decisions = await DecisionLog.open(session.nc, session.prefix);
  }, 90_000);

  afterAll(async () => {
    await decisions?.close();
    await system?.dispose();
    await webhooks?.stop();
  });

  /** A client of its own, in a fresh conversation, with alice its only approver. */
  async function newAgent(conversation = driver.freshConversation()): Promise<Agent> {
    const hook = `/hook/${uniqueToken('c')}`;
    const { client, key } = await approvals.createClient({
      name: 'build bot',
      platform,
      workspaceId: conversation.workspaceId,
      conversation: { channelId: conversation.channelId, threadId: conversation.threadId },
      approvers: [alice.id],
      webhookUrl: webhooks!.url(hook),
    });
    return { client, key, hook, conversation };
  }

  const args = { command: 'rm -rf build', cwd: '/srv/app' };
  async function ask(agent: Agent, body: Record<string, unknown> = {}): Promise<string> {
    const created = await approvals.create(agent.key, {
      tool: 'Bash',
      arguments: args,
      summary: 'Clean the build folder',
      agent: { name: 'claude-code', session: 'sess-1' },
      ...body,
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'pending', tool: 'Bash' });
    return created.body.id as string;
  }

  /** The prompt for an approval, once the binding has journaled it (only then is it answered). */
  async function prompted(agent: Agent, id: string): Promise<ChatMessageView> {
    const posted = await waitFor('the prompt', () =>
      driver
        .messagesIn(agent.conversation)
        .find((m) => m.buttons.length > 0 && m.text.includes('Bash')),
    );
    await waitFor('the binding to journal the prompt', async () =>
      (await binding.journal()).some(
        (row) => row.call_id === id && row.type === 'PendingApprovalPromptTracked',
      )
        ? true
        : undefined,
    );
    return posted;
  }

  const click = async (message: ChatMessageView, label: string) => {
    const button = message.buttons.find((b) => b.label === label);
    expect(button).toBeDefined();
    expect((await driver.click(binding.url, message, button!, alice)).status).toBe(200);
  };

  const longPoll = (agent: Agent, id: string): Promise<ApiAnswer> =>
    approvals.call('GET', `/v1/approvals/${id}?wait=30`, { key: agent.key });

  /** The webhook's one delivery of the decision, its signature checked with the client's secret. */
  async function delivered(agent: Agent, id: string): Promise<Record<string, unknown>> {
    const [first] = await waitFor('the webhook delivery', () => {
      const got = webhooks!.about(agent.hook, id);
      return got.length > 0 ? got : undefined;
    });
    expect(signatureValid(first, agent.client.webhookSecret ?? '')).toBe(true);
    expect(signatureValid(first, 'another secret')).toBe(false);
    return first.approval;
  }

  const shownWithout = (agent: Agent, posted: ChatMessageView, words: string) =>
    waitFor(`the prompt to lose its buttons and say "${words}"`, () =>
      driver
        .messagesIn(agent.conversation)
        .find(
          (m) =>
            m.messageId === posted.messageId && m.buttons.length === 0 && m.text.includes(words),
        ),
    );

  it(`A1 created over HTTP, shown in ${platform} with the tool and arguments, approved by a click: the long poll and the signed webhook say who, redeem answers 200 once`, async () => {
    const agent = await newAgent();
    const id = await ask(agent);
    const posted = await prompted(agent, id);
    expect(posted.text).toContain('Bash');
    expect(posted.text).toContain('rm -rf build');
    expect(posted.text).toContain('/srv/app');
    expect(posted.text).toContain('Clean the build folder');

    const waiting = longPoll(agent, id);
    await click(posted, 'Approve once');
    const answered = await waiting;
    expect(answered.status).toBe(200);
    const decided = {
      id,
      status: 'approved',
      decision: { option: 'approve_once', via: 'click', by: { platform, id: alice.id } },
    };
    expect(answered.body).toMatchObject(decided);
    expect(await delivered(agent, id)).toMatchObject(decided);

    const redeem = () =>
      approvals.call('POST', `/v1/approvals/${id}/redeem`, {
        key: agent.key,
        body: { argumentsHash: answered.body.argumentsHash },
      });
    expect((await redeem()).status).toBe(200);
    expect(await redeem()).toMatchObject({ status: 409, body: { error: 'already_redeemed' } });
  });

  it(`A1 a typed "approve" in ${platform} approves via text; a "Deny" click denies`, async () => {
    const agent = await newAgent();
    const typed = await ask(agent);
    await prompted(agent, typed);
    expect((await driver.say(binding.url, agent.conversation, 'approve', alice)).status).toBe(200);
    expect((await longPoll(agent, typed)).body).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_once', via: 'text', by: { id: alice.id } },
    });

    const other = await newAgent();
    const denied = await ask(other);
    await click(await prompted(other, denied), 'Deny');
    const answered = await longPoll(other, denied);
    expect(answered.body).toMatchObject({
      status: 'denied',
      decision: { option: 'deny', via: 'click', by: { id: alice.id } },
    });
    expect(await delivered(other, denied)).toMatchObject({ status: 'denied' });
    expect(
      await approvals.call('POST', `/v1/approvals/${denied}/redeem`, {
        key: other.key,
        body: { argumentsHash: answered.body.argumentsHash },
      }),
    ).toMatchObject({ status: 409, body: { error: 'not_approved' } });
  });

  it(`A1 the agent cancels: the prompt in ${platform} says "Withdrawn by the agent" and the approval is cancelled`, async () => {
    const agent = await newAgent();
    const id = await ask(agent);
    const posted = await prompted(agent, id);
    const cancelled = await approvals.call('POST', `/v1/approvals/${id}/cancel`, {
      key: agent.key,
    });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled', decision: null } });
    await shownWithout(agent, posted, 'Withdrawn by the agent');
    expect((await longPoll(agent, id)).body).toMatchObject({ status: 'cancelled' });
  });

  it(`A1 ${platform} refuses the prompt for good: the approval is expired, nothing is shown, and the webhook says so`, async () => {
    const agent = await newAgent();
    driver.failNext('post', { kind: 'refused' }, { conversation: agent.conversation });
    const id = await ask(agent);
    expect((await longPoll(agent, id)).body).toMatchObject({ status: 'expired', decision: null });
    expect(await delivered(agent, id)).toMatchObject({ status: 'expired' });
    expect(driver.callTimes('post', { conversation: agent.conversation })).toHaveLength(1);
    expect(driver.messagesIn(agent.conversation).filter((m) => m.text.includes('Bash'))).toEqual(
      [],
    );
  });

  it(`A1 a 2 s deadline in ${platform}: expired, and denied with onDeadline "deny", via the deadline`, async () => {
    const agent = await newAgent();
    const expiring = await ask(agent, { deadline: '2s' });
    const posted = await prompted(agent, expiring);
    expect((await longPoll(agent, expiring)).body).toMatchObject({
      status: 'expired',
      decision: { via: 'deadline', reason: 'deadline passed' },
    });
    await shownWithout(agent, posted, 'deadline passed');

    const other = await newAgent();
    const denying = await ask(other, { deadline: '2s', onDeadline: 'deny' });
    await prompted(other, denying);
    expect((await longPoll(other, denying)).body).toMatchObject({
      status: 'denied',
      decision: { option: 'deny', via: 'deadline', by: { id: 'tollgate' } },
    });
    expect(await delivered(other, denying)).toMatchObject({ status: 'denied' });
  });

  it(`A1 the session service is SIGKILLed with the approval pending: the ${platform} prompt says "still valid", a click decides, the held long poll and the webhook deliver it once`, async () => {
    const agent = await newAgent();
    const id = await ask(agent);
    const posted = await prompted(agent, id);
    const waiting = longPoll(agent, id);
    await session.restart('SIGKILL');
    const refreshed = await waitFor('the refreshed prompt', () =>
      driver
        .messagesIn(agent.conversation)
        .find((m) => m.messageId === posted.messageId && m.text.includes('still valid')),
    );
    await click(refreshed, 'Approve once');
    expect((await waiting).body).toMatchObject({
      status: 'approved',
      decision: { via: 'click', by: { id: alice.id } },
    });
    expect(await delivered(agent, id)).toMatchObject({ status: 'approved' });
    await decisions!.waitFor(id);
    expect(decisions!.of(id)).toHaveLength(1);
    expect(webhooks!.about(agent.hook, id)).toHaveLength(1);
    expect(driver.messagesIn(agent.conversation)).toHaveLength(1);
  });

  it(`A1 "Always allow" on an API prompt in ${platform} covers that approver and client (the next request is approved via grant, no prompt) but not another client`, async () => {
    const agent = await newAgent();
    const first = await ask(agent);
    await click(await prompted(agent, first), 'Always allow');
    expect((await longPoll(agent, first)).body).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_always', via: 'click' },
    });

    const covered = await ask(agent, { agent: { name: 'claude-code', session: 'sess-2' } });
    expect((await longPoll(agent, covered)).body).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_always', via: 'grant', by: { id: alice.id } },
    });
    expect(driver.messagesIn(agent.conversation)).toHaveLength(1);

    const stranger = await newAgent(agent.conversation);
    const uncovered = await ask(stranger);
    const posted = await waitFor('a prompt for the other client', () =>
      driver
        .messagesIn(agent.conversation)
        .find((m) => m.buttons.length > 0 && m.text.includes('Bash')),
    );
    expect(
      (await approvals.call('GET', `/v1/approvals/${uncovered}`, { key: stranger.key })).body,
    ).toMatchObject({ status: 'pending' });
    expect(
      (await approvals.call('POST', `/v1/approvals/${uncovered}/cancel`, { key: stranger.key }))
        .status,
    ).toBe(200);
    await shownWithout(agent, posted, 'Withdrawn by the agent');
  });
});
