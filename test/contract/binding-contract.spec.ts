import {
  type Output,
  outputSubject,
  type Platform,
  standardOptions,
  type ToolInteractionResponse,
} from '@tollgate/protocol';
import { alice, bob } from '../support/commands';
import { BindingFixture } from '../support/binding.fixture';
import {
  rejectedOutput,
  requestOutput,
  resolvedOutput,
  textOutput,
  updateOutput,
} from '../support/outputs';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { externalContractTarget } from './contract-target';
import { CONTRACT_DRIVERS } from './drivers';
import type { ChatMessageView, PlatformDriver } from './platform-driver';

/**
 * The binding contract (docs/scenarios.md B1–B16), written once and run against each binding
 * service: the real binding process, outputs published on NATS, signed inbound requests,
 * assertions on the platform's fake API and on the commands published.
 *
 * External mode (TOLLGATE_CONTRACT_BINDING_URL, see contract-target.ts and the README) runs it
 * against a binding started by hand instead; tests that must restart that binding are skipped,
 * and the replica tests (B13, B14) start their extra replicas beside it.
 */
const external = externalContractTarget();
const platforms = external ? [external.platform] : (Object.keys(CONTRACT_DRIVERS) as Platform[]);
/** A short ack_wait, so a replica killed mid-batch is taken over within seconds (B13). */
const SUITE_ENV = { TOLLGATE_ACK_WAIT_MS: '2000' };
/** The suite's own TOLLGATE_DRAIN_MS for the replicas it starts (BindingFixture's). */
const REPLICA_DRAIN_MS = 3_000;
/** Restarting the binding under test needs a binding the suite started. */
const restartingIt = external ? it.skip : it;
const RESTART_SKIPPED = external
  ? ' [skipped: the binding was started by hand, so the suite cannot restart it]'
  : '';
/** Unique per run: a fixed Nats-Msg-Id would be dropped as a duplicate on a quick re-run. */
const run = uniqueToken('');

describe.each(platforms)('%s binding contract', (platform) => {
  let driver: PlatformDriver;
  let binding: BindingFixture;
  /** The durable's ack_wait; every take-over waits on it, so deadlines scale with it. */
  let ackWaitMs: number;

  beforeAll(async () => {
    const makeDriver = CONTRACT_DRIVERS[platform];
    if (!makeDriver) throw new Error(`no contract driver for ${platform}`);
    driver = makeDriver();
    await driver.start(external ? { port: external.fakePort } : {});
    binding = external
      ? await BindingFixture.attach(`${platform}-binding`, external, () => driver.bindingEnv())
      : await BindingFixture.create(
          `${platform}-binding`,
          `contract${platform}`,
          () => driver.bindingEnv(),
          SUITE_ENV,
        );
    ackWaitMs = await binding.ackWaitMs();
  });

  afterEach(() => {
    driver.clearFaults();
    driver.setLatencyMs(0);
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver?.stop();
  });

  /** The one message the conversation shows once `predicate` holds. */
  async function promptIn(
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    what: string,
    predicate: (m: ChatMessageView) => boolean = () => true,
  ): Promise<ChatMessageView> {
    return waitFor(what, () => {
      const messages = driver.messagesIn(conversation);
      const [message] = messages;
      if (messages.length > 1) throw new Error(`${messages.length} messages posted`);
      return message && predicate(message) ? message : undefined;
    });
  }

  /** The prompt's journal; by session too, as a binding started by hand keeps earlier runs'. */
  async function journalFor(prompt: { sessionId: string; callId: string }) {
    return (await binding.journal()).filter(
      (row) => row.session_id === prompt.sessionId && row.call_id === prompt.callId,
    );
  }

  /**
   * The types of the prompt's journal once it holds `rows` rows: a binding journals an effect
   * after the platform answered it, so a post or edit is visible a moment before its row.
   */
  async function journalTypesOnceRecorded(
    prompt: { sessionId: string; callId: string },
    rows: number,
  ) {
    return waitFor(`the journal to record ${rows} rows`, async () => {
      const types = (await journalFor(prompt)).map((r) => r.type);
      return types.length >= rows ? types : undefined;
    });
  }

  /** Publishes a marker text and waits for it: everything published before was handled. */
  async function settle(
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    seq: number,
  ) {
    const marker = `marker ${seq}`;
    await binding.publish(textOutput(conversation, seq, marker));
    await waitFor(`the marker text ${seq}`, () =>
      driver.messagesIn(conversation).some((m) => m.text.includes(marker)) ? true : undefined,
    );
  }

  it('B1 a request posts one message with a button per option and journals it as tracked', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_2_1', 5);
    await binding.publish(request);
    const message = await promptIn(conversation, 'the prompt');
    expect(message.buttons.map((b) => [b.label, b.style])).toEqual([
      ['Approve once', 'primary'],
      ['Allow in this chat', 'default'],
      ['Always allow', 'default'],
      ['Deny', 'danger'],
    ]);
    expect(message.text).toContain('write_note');
    expect(message.text).toContain('call_2_1');
    const journal = await waitFor('the tracked event', async () => {
      const rows = await journalFor(request);
      return rows.length > 0 ? rows : undefined;
    });
    expect(journal.map((r) => r.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(JSON.stringify(journal[0].data)).toContain(message.messageId);
  });

  it('B2 a signed click publishes one response with the clicker and option, and edits nothing', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b2', 5);
    await binding.publish(request);
    const message = await promptIn(conversation, 'the prompt');
    // Clicked once the post is journaled: a Mattermost click is checked against the journaled
    // post and nonce, and the stand-in shows the post a moment before the binding records it
    // (a click in that moment is refused 401 wrong_post, as D7's typed answer was in CI).
    await journalTypesOnceRecorded(request, 1);
    const deny = message.buttons.find((b) => b.label === 'Deny')!;
    const response = await driver.click(binding.url, message, deny, bob);
    expect(response.status).toBe(200);
    const [published] = await waitFor('the response command', () => {
      // The prompt's own ToolInteractionShown (G4) is not the answer.
      const found = binding.commands.filter(
        (c) =>
          c.command.sessionId === request.sessionId && c.command.type !== 'ToolInteractionShown',
      );
      return found.length > 0 ? found : undefined;
    });
    expect(published.subject).toBe(
      `${binding.prefix}.cmd.${platform}.${request.sessionId}.response`,
    );
    const command = published.command as ToolInteractionResponse;
    expect(command).toMatchObject({
      type: 'ToolInteractionResponse',
      callId: 'call_b2',
      optionKey: 'deny',
      sender: { id: bob.id },
      conversation,
    });
    await settle(conversation, 6);
    expect(
      driver.messagesIn(conversation).find((m) => m.messageId === message.messageId)!.edits,
    ).toBe(0);
  });

  it('B3 resolved edits once: the label and who, controls removed, journal cleared', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b3', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    await binding.publish(resolvedOutput(request, 7, bob));
    const edited = await promptIn(conversation, 'the resolved prompt', (m) => m.edits > 0);
    expect(edited.edits).toBe(1);
    expect(edited.buttons).toHaveLength(0);
    expect(edited.text).toContain('Approve once');
    expect(edited.text).toMatch(new RegExp(`${bob.id}|${bob.displayName}`));
    const types = await journalTypesOnceRecorded(request, 2);
    expect(types).toEqual(['PendingApprovalPromptTracked', 'PendingApprovalPromptCleared']);
  });

  it.each([
    ['Abandoned', 'superseded'],
    ['Expired', 'expired'],
  ] as const)(
    'B4 %s edits once with controls removed and a banner; later outputs change nothing',
    async (status, banner) => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, `call_b4_${status}`, 5);
      await binding.publish(request);
      await promptIn(conversation, 'the prompt');
      await binding.publish(updateOutput(request, status, 8));
      const edited = await promptIn(conversation, 'the banner', (m) => m.edits > 0);
      expect(edited.buttons).toHaveLength(0);
      expect(edited.text.toLowerCase()).toContain(banner);
      expect((await journalTypesOnceRecorded(request, 2)).at(-1)).toBe(
        'PendingApprovalPromptCleared',
      );

      await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
      await binding.publish(resolvedOutput(request, 10));
      await settle(conversation, 11);
      await refreshesSettled(request.sessionId);
      const after = driver.messagesIn(conversation).find((m) => m.messageId === edited.messageId)!;
      expect(after.edits).toBe(1);
      expect(after.buttons).toHaveLength(0);
    },
  );

  it('B5 a refresh edits in place, keeps the controls and says it is still valid', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b5', 5);
    await binding.publish(request);
    const posted = await promptIn(conversation, 'the prompt');
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const refreshed = await promptIn(conversation, 'the refresh', (m) => m.edits > 0);
    expect(refreshed.messageId).toBe(posted.messageId);
    expect(refreshed.buttons.map((b) => b.label)).toEqual(posted.buttons.map((b) => b.label));
    expect(refreshed.text).toMatch(/still valid/i);
    expect(refreshed.text).toMatch(/restart/i);
    const types = await journalTypesOnceRecorded(request, 2);
    expect(types).toEqual(['PendingApprovalPromptTracked', 'PendingApprovalPromptRefreshed']);
  });

  describe('B6 cold start of the binding', () => {
    restartingIt(
      `B6 after a cold start of the binding, a refresh edits the persisted message${RESTART_SKIPPED}`,
      async () => {
        const conversation = driver.freshConversation();
        const request = requestOutput(conversation, 'call_b6', 5);
        await binding.publish(request);
        const posted = await promptIn(conversation, 'the prompt');
        await binding.stop();
        await binding.start();
        await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
        const refreshed = await promptIn(conversation, 'the refresh', (m) => m.edits > 0);
        expect(refreshed.messageId).toBe(posted.messageId);
        expect(refreshed.buttons.length).toBeGreaterThan(0);
      },
    );
  });

  it('B7 a refresh with no record posts a fresh interactive prompt once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b7', 5);
    const before = driver.postCount();
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const posted = await promptIn(conversation, 'the re-posted prompt');
    expect(posted.buttons.map((b) => b.label)).toContain('Approve once');
    await binding.publish(
      updateOutput(request, 'RefreshedAfterRestart', 9),
      `same-refresh-again-${run}`,
    );
    await settle(conversation, 12);
    await refreshesSettled(request.sessionId);
    expect(driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)).toHaveLength(1);
    expect(driver.postCount() - before).toBe(2); // the prompt and the marker
  });

  it('B8 an abandon that arrives before its request means nothing live is ever shown', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b8', 5);
    await binding.publish(updateOutput(request, 'Abandoned', 8));
    await binding.publish(request);
    await settle(conversation, 9);
    expect(driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)).toHaveLength(0);
  });

  it('B9 duplicates and stale seq are dropped; a redelivered text is posted once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b9', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    await binding.publish(request, `${request.id}-redelivered`);
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    await binding.publish(
      updateOutput(request, 'RefreshedAfterRestart', 9),
      `refresh-again-${run}`,
    );
    await binding.publish(
      updateOutput(request, 'RefreshedAfterRestart', 7),
      `stale-refresh-${run}`,
    );
    const reply = textOutput(conversation, 10, 'the reply');
    await binding.publish(reply);
    await binding.publish(reply, `${reply.id}-redelivered`);
    // Refreshes yield to replies and notices when the platform's rate limit is short (P5), so
    // the marker alone does not say the refresh was applied: wait for its edit first.
    await waitFor('the refreshed prompt', () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length > 0 && m.edits > 0),
    );
    await settle(conversation, 11);
    await refreshesSettled(request.sessionId);
    const messages = driver.messagesIn(conversation);
    expect(messages.filter((m) => m.buttons.length > 0)).toHaveLength(1);
    expect(messages.find((m) => m.buttons.length > 0)!.edits).toBe(1);
    expect(messages.filter((m) => m.text.includes('the reply'))).toHaveLength(1);
  });

  describe('B10 forged, expired or replayed signatures', () => {
    it.each(['forged', 'stale'] as const)(
      'B10 a %s signature gets 401 and publishes nothing',
      async (signing) => {
        const conversation = driver.freshConversation();
        const request = requestOutput(conversation, `call_b10_${signing}`, 5);
        await binding.publish(request);
        const message = await promptIn(conversation, 'the prompt');
        // Journaled first: before that a Mattermost click is refused 401 for the unjournaled
        // post, and the 401 below would not say the signature was checked.
        await journalTypesOnceRecorded(request, 1);
        const click = await driver.click(binding.url, message, message.buttons[0], alice, signing);
        expect(click.status).toBe(401);
        const say = await driver.say(binding.url, conversation, 'hello', alice, signing);
        expect(say.status).toBe(401);
        // A valid request afterwards is published: the refusal above was the signature's doing.
        await driver.say(binding.url, conversation, 'valid hello', alice);
        // The prompt's own report (G4 ToolInteractionShown) is the binding's, not a request's.
        const fromRequests = () =>
          binding.commands.filter(
            (c) =>
              c.command.sessionId === request.sessionId &&
              c.command.type !== 'ToolInteractionShown',
          );
        await waitFor('the valid message', () => (fromRequests().length > 0 ? true : undefined));
        const published = fromRequests();
        expect(published).toHaveLength(1);
        expect(published[0].command).toMatchObject({ type: 'UserMessage', text: 'valid hello' });
      },
    );
  });

  it('B11 a rejection is a private notice to the clicker only; the prompt is unchanged', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b11', 5);
    await binding.publish(request);
    const posted = await promptIn(conversation, 'the prompt');
    // A wrong-requester refusal is journaled by the session, so it carries a seq.
    await binding.publish(rejectedOutput(request, 6, bob));
    await waitFor('the notice', () =>
      driver.notices().some((n) => n.userId === bob.id && n.text.includes('Only the person'))
        ? true
        : undefined,
    );
    await settle(conversation, 7);
    expect(
      driver.notices().filter((n) => n.text.includes('Only the person') && n.userId !== bob.id),
    ).toHaveLength(0);
    const after = driver.messagesIn(conversation).find((m) => m.messageId === posted.messageId)!;
    expect(after.edits).toBe(0);
    expect(after.buttons).toHaveLength(posted.buttons.length);
  });

  /** Waits until the durable has nothing pending or unacknowledged. */
  async function allHandled(timeoutMs = 10_000) {
    await waitFor(
      'every output handled and acknowledged',
      async () => {
        const state = await binding.consumerState();
        return state.ackPending === 0 && state.pending === 0 ? true : undefined;
      },
      { timeoutMs },
    );
  }

  /**
   * Every output published for the session so far was handled, refreshes included: one the
   * platform had no room for is acked once parked and shown later by the sweeper (P5), so a
   * settle marker can come out before it and an absence asserted then could not yet fail.
   */
  async function refreshesSettled(sessionId: string) {
    await allHandled();
    await waitFor('no refresh still owed', async () =>
      (await binding.owedRefreshes(sessionId)) === 0 ? true : undefined,
    );
  }

  /** The outputs' dead letters so far. */
  async function deadLettersOf(outputs: readonly Output[]) {
    const subjects = new Set(outputs.map((o) => outputSubject(binding.subjects, o)));
    return (await binding.deadLetters()).filter((l) => subjects.has(l.originalSubject ?? ''));
  }

  /** A retry waits out the binding's retry delays; a binding started by hand may use longer ones. */
  const RETRY_WAIT = { timeoutMs: 20_000 };

  describe('B16 — answers typed as text', () => {
    /** The commands published for the session so far, but the prompts' reports (G4). */
    const commandsOf = (sessionId: string) =>
      binding.commands
        .filter((c) => c.command.sessionId === sessionId)
        .map((c) => c.command)
        .filter((c) => c.type !== 'ToolInteractionShown');

    /**
     * Says a plain message and waits for it; returns the session's other commands. Called once
     * the answer word's one effect (its response, or its hint) was seen: nothing follows that.
     */
    async function publishedBefore(
      conversation: ReturnType<PlatformDriver['freshConversation']>,
      sessionId: string,
    ) {
      const marker = `after ${uniqueToken('')}`;
      expect((await driver.say(binding.url, conversation, marker, alice)).status).toBe(200);
      await waitFor('the marker message', () =>
        commandsOf(sessionId).some((c) => c.type === 'UserMessage' && c.text === marker)
          ? true
          : undefined,
      );
      return commandsOf(sessionId).filter((c) => !(c.type === 'UserMessage' && c.text === marker));
    }

    it('B16 the requester typing an answer word publishes one response with the sender, not a message', async () => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, 'call_b16_1', 5);
      await binding.publish(request);
      const posted = await promptIn(conversation, 'the prompt');
      // A binding journals the post once the platform answered it: an answer typed before
      // that finds no pending prompt, as a person typing that fast would.
      await journalTypesOnceRecorded(request, 1);

      expect((await driver.say(binding.url, conversation, 'Approve!', alice)).status).toBe(200);

      const [command] = await waitFor('the response command', () => {
        const found = commandsOf(request.sessionId);
        return found.length > 0 ? found : undefined;
      });
      expect(command).toMatchObject({
        type: 'ToolInteractionResponse',
        callId: 'call_b16_1',
        optionKey: 'approve_once',
        sender: { id: alice.id },
        promptRef: posted.messageId,
      });
      expect(await publishedBefore(conversation, request.sessionId)).toHaveLength(1);
      // The prompt changes only when the session answers, as for a click (B2, B3).
      expect(
        driver.messagesIn(conversation).find((m) => m.messageId === posted.messageId)!.edits,
      ).toBe(0);
      await binding.publish(resolvedOutput(request, 7, alice));
      const resolved = await promptIn(conversation, 'the resolved prompt', (m) => m.edits > 0);
      expect(resolved.buttons).toHaveLength(0);
      expect(resolved.text).toContain('Approve once');
    });

    it('B16 with two pending prompts an answer word gets a private hint; nothing is published or superseded', async () => {
      const conversation = driver.freshConversation();
      const first = requestOutput(conversation, 'call_b16_2a', 5);
      await binding.publish(first);
      await binding.publish(requestOutput(conversation, 'call_b16_2b', 6));
      await waitFor('both prompts', () =>
        driver.messagesIn(conversation).filter((m) => m.buttons.length > 0).length === 2
          ? true
          : undefined,
      );
      await journalTypesOnceRecorded({ sessionId: first.sessionId, callId: 'call_b16_2b' }, 1);
      const noticesBefore = driver.notices().length;

      expect((await driver.say(binding.url, conversation, 'yes', alice)).status).toBe(200);

      const hint = await waitFor('the hint', () =>
        driver
          .notices()
          .slice(noticesBefore)
          .find((n) => n.userId === alice.id && n.text.includes('2 requests')),
      );
      expect(hint.text).toContain('not sent');
      expect(await publishedBefore(conversation, first.sessionId)).toEqual([]);
      expect(
        driver
          .notices()
          .slice(noticesBefore)
          .filter((n) => n.userId !== alice.id),
      ).toEqual([]);
      for (const prompt of driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)) {
        expect(prompt.edits).toBe(0);
      }
    });

    it('B16 an answer word for an option the prompt does not offer gets a hint naming the offered answers', async () => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, 'call_b16_3', 5, {
        options: standardOptions().filter((o) => o.key === 'approve_once' || o.key === 'deny'),
      });
      await binding.publish(request);
      await promptIn(conversation, 'the prompt');
      await journalTypesOnceRecorded(request, 1);
      const noticesBefore = driver.notices().length;

      expect((await driver.say(binding.url, conversation, 'always', alice)).status).toBe(200);

      const hint = await waitFor('the hint', () =>
        driver
          .notices()
          .slice(noticesBefore)
          .find((n) => n.userId === alice.id && n.text.includes('does not offer')),
      );
      expect(hint.text).toMatch(/approve.*deny/);
      expect(await publishedBefore(conversation, request.sessionId)).toEqual([]);
    });
  });

  it('B12 a 5xx is retried with a growing delay and ends in exactly one post', async () => {
    const conversation = driver.freshConversation();
    driver.failNext('post', { kind: 'server_error' }, { conversation, times: 3 });
    const request = requestOutput(conversation, 'call_b12_5xx', 5);
    await binding.publish(request);

    const message = await waitFor(
      'the prompt after three outages',
      () => driver.messagesIn(conversation)[0],
      RETRY_WAIT,
    );

    const posts = driver.callTimes('post', { conversation });
    expect(posts).toHaveLength(4);
    // Each retry came no sooner than its own delay, which doubles from the base (50 ms here, or
    // more for a binding started by hand). Comparing the gaps with each other instead would
    // measure the machine: a busy CPU adds more to one attempt than the 150 ms between them.
    const gaps = posts.slice(1).map((at, i) => at - posts[i]);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(50 * 2 ** i));
    if (!external) {
      // The delays the binding asked JetStream for, from its own log: each longer than the last.
      const subject = outputSubject(binding.subjects, request);
      const delays = binding
        .process!.output()
        .split('\n')
        .flatMap((line) => {
          try {
            const entry = JSON.parse(line) as { msg?: string; subject?: string; delayMs?: number };
            return entry.msg === 'handler failed; nak with delay' && entry.subject === subject
              ? [entry.delayMs ?? 0]
              : [];
          } catch {
            return [];
          }
        });
      expect(delays).toHaveLength(3);
      expect(delays[1]).toBeGreaterThan(delays[0]);
      expect(delays[2]).toBeGreaterThan(delays[1]);
    }
    expect(driver.messagesIn(conversation)).toHaveLength(1);
    expect(message.buttons.length).toBeGreaterThan(0);
    expect(await journalTypesOnceRecorded(request, 1)).toEqual(['PendingApprovalPromptTracked']);
    const [tracked] = await journalFor(request);
    expect(JSON.stringify(tracked.data)).toContain(message.messageId);
  });

  it('B12 a 429 is retried no sooner than its Retry-After and edits exactly once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b12_429', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    driver.failNext('edit', { kind: 'rate_limited', retryAfterSeconds: 1 }, { conversation });

    await binding.publish(resolvedOutput(request, 7, bob));
    const edited = await waitFor(
      'the resolved prompt',
      () => driver.messagesIn(conversation).find((m) => m.edits > 0),
      RETRY_WAIT,
    );

    const edits = driver.callTimes('edit', { conversation });
    expect(edits).toHaveLength(2);
    expect(edits[1] - edits[0]).toBeGreaterThanOrEqual(1_000);
    expect(edited.edits).toBe(1);
    expect(edited.buttons).toHaveLength(0);
    const types = await journalTypesOnceRecorded(request, 2);
    expect(types).toEqual(['PendingApprovalPromptTracked', 'PendingApprovalPromptCleared']);
  });

  it('B12 an edit that timed out unapplied is retried and edits exactly once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b12_timeout', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    driver.failNext('edit', { kind: 'timeout' }, { conversation });

    await binding.publish(updateOutput(request, 'Abandoned', 8));
    const edited = await waitFor(
      'the superseded prompt',
      () => driver.messagesIn(conversation).find((m) => m.edits > 0),
      RETRY_WAIT,
    );

    expect(driver.callTimes('edit', { conversation })).toHaveLength(2);
    expect(edited.edits).toBe(1);
    expect(edited.text.toLowerCase()).toContain('superseded');
  });

  it('B12 a post that timed out after the platform accepted it is found and tracked, not repeated', async () => {
    const conversation = driver.freshConversation();
    driver.failNext('post', { kind: 'accept_then_timeout' }, { conversation });
    const request = requestOutput(conversation, 'call_b12_accepted', 5);
    await binding.publish(request);

    const journal = await waitFor(
      'the accepted post to be tracked',
      async () => {
        const rows = await journalFor(request);
        return rows.length > 0 ? rows : undefined;
      },
      RETRY_WAIT,
    );

    const messages = driver.messagesIn(conversation);
    expect(messages).toHaveLength(1);
    expect(driver.callTimes('post', { conversation })).toHaveLength(1);
    expect(journal.map((r) => r.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(JSON.stringify(journal[0].data)).toContain(messages[0].messageId);
    // The journal holds that very message: the next output edits it.
    await binding.publish(resolvedOutput(request, 7, bob));
    const edited = await promptIn(conversation, 'the resolved prompt', (m) => m.edits > 0);
    expect(edited.messageId).toBe(messages[0].messageId);
    expect(edited.buttons).toHaveLength(0);
  });

  it('R3 a post that timed out after the platform took it is found behind 1,000 newer messages, not repeated', async () => {
    const conversation = driver.freshConversation();
    driver.failNext('post', { kind: 'accept_then_timeout' }, { conversation });
    const request = requestOutput(conversation, 'call_r3_busy', 5);
    await binding.publish(request);
    // The platform holds the answer until the binding gives up; meanwhile the channel fills.
    await waitFor('the accepted post', () => driver.messagesIn(conversation)[0]);
    driver.addOthersMessages(conversation, 1_000);

    const journal = await waitFor(
      'the accepted post to be tracked',
      async () => {
        const rows = await journalFor(request);
        return rows.length > 0 ? rows : undefined;
      },
      RETRY_WAIT,
    );

    const messages = driver.messagesIn(conversation);
    expect(messages).toHaveLength(1);
    expect(journal.map((r) => r.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(JSON.stringify(journal[0].data)).toContain(messages[0].messageId);
  });

  it('R3 a post that landed while reading the conversation back kept failing shows the outcome with the prompt: no message keeps live buttons', async () => {
    const conversation = driver.freshConversation();
    // The post lands without an answer, and every look for it fails past the bound: the
    // prompt is posted afresh, and the post that landed is tracked by nothing.
    driver.failNext('post', { kind: 'accept_then_timeout' }, { conversation });
    driver.failNext('read', { kind: 'server_error' }, { conversation, times: Infinity });
    const request = requestOutput(conversation, 'call_r3_stray', 5);
    await binding.publish(request);
    await waitFor(
      'the prompt to be tracked once the look gave up',
      async () => ((await journalFor(request)).length > 0 ? true : undefined),
      { timeoutMs: 40_000 },
    );
    driver.clearFaults();
    expect(driver.callTimes('read', { conversation }).length).toBeGreaterThan(0);

    await binding.publish(resolvedOutput(request, 7, bob));

    // Slack has two messages. A platform that answers a repeated post with the first within
    // a while (Discord's nonce, Mattermost's pending_post_id) has one. None keeps buttons.
    const shown = await waitFor(
      'every message of the prompt to show its outcome',
      () => {
        const messages = driver.messagesIn(conversation);
        const live = messages.some((m) => m.buttons.length > 0);
        return messages.length > 0 && !live ? messages : undefined;
      },
      RETRY_WAIT,
    );
    expect(shown.length).toBeLessThanOrEqual(2);
    for (const message of shown) expect(message.text).toContain('Approve once');
    await allHandled();
    expect(await deadLettersOf([request])).toEqual([]);
  });

  it('R4 a prompt whose message was deleted is shown again by a new message: live buttons, then the outcome', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_r4_deleted', 5);
    await binding.publish(request);
    const original = await promptIn(conversation, 'the prompt');
    driver.deleteMessage(original);

    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 6));
    const reposted = await promptIn(conversation, 'the reposted prompt');
    expect(reposted.messageId).not.toBe(original.messageId);
    expect(reposted.buttons.map((b) => b.label)).toEqual(original.buttons.map((b) => b.label));
    expect(await journalTypesOnceRecorded(request, 3)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptReposted',
      'PendingApprovalPromptRefreshed',
    ]);
    // Its buttons answer the prompt.
    const approve = reposted.buttons.find((b) => b.style === 'primary')!;
    expect((await driver.click(binding.url, reposted, approve, alice)).status).toBe(200);
    await waitFor('the click', () =>
      binding.commands.find(
        (c) =>
          c.command.type === 'ToolInteractionResponse' && c.command.sessionId === request.sessionId,
      ),
    );

    // Deleted again before the outcome: the outcome is shown without buttons.
    driver.deleteMessage(reposted);
    await binding.publish(resolvedOutput(request, 8, alice));
    const outcome = await promptIn(conversation, 'the outcome');
    expect(outcome.messageId).not.toBe(reposted.messageId);
    expect(outcome.buttons).toHaveLength(0);
    expect(await journalTypesOnceRecorded(request, 5)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptReposted',
      'PendingApprovalPromptRefreshed',
      'PendingApprovalPromptReposted',
      'PendingApprovalPromptCleared',
    ]);
    await allHandled();
    expect(await deadLettersOf([request])).toEqual([]);
  });

  it('B12 a text whose post timed out after the platform accepted it is shown once', async () => {
    const conversation = driver.freshConversation();
    const before = driver.postCount();
    driver.failNext('post', { kind: 'accept_then_timeout' }, { conversation });
    await binding.publish(textOutput(conversation, 4, 'b12 accepted reply'));

    await waitFor('the reply', () => driver.messagesIn(conversation)[0], RETRY_WAIT);
    await allHandled(RETRY_WAIT.timeoutMs);

    expect(driver.messagesIn(conversation).map((m) => m.text)).toEqual([
      expect.stringContaining('b12 accepted reply'),
    ]);
    // Never posted again: found by reading back (Slack), or the retry repeated the post's
    // idempotency key and got the same message back (Discord's enforced nonce), which
    // postCount does not count as a post.
    expect(driver.postCount() - before).toBe(1);
  });

  it('R2 a Request the platform refuses for good is reported undeliverable with its own code; nothing is dead-lettered or shown', async () => {
    const conversation = driver.freshConversation();
    driver.failNext('post', { kind: 'refused' }, { conversation });
    const request = requestOutput(conversation, 'call_r2_refused', 5);
    await binding.publish(request);

    const published = await waitFor('the undeliverable command', () =>
      binding.commands.find((c) => c.command.id === `undeliverable:${request.id}`),
    );

    const reasons: Record<Platform, string> = {
      slack: 'channel_not_found',
      discord: '404:10003',
      mattermost: '403:api.context.permissions.app_error',
    };
    expect(published.subject).toBe(
      `${binding.prefix}.cmd.${platform}.${request.sessionId}.undeliverable`,
    );
    expect(published.command).toMatchObject({
      type: 'ToolInteractionUndeliverable',
      sessionId: request.sessionId,
      callId: 'call_r2_refused',
      reason: reasons[platform],
    });
    await allHandled();
    expect(await deadLettersOf([request])).toEqual([]);
    expect(driver.callTimes('post', { conversation })).toHaveLength(1);
    expect(driver.messagesIn(conversation)).toHaveLength(0);
  });

  it('B13 a replica killed mid-batch: the other finishes every message, nothing lost or doubled', async () => {
    const doomed = 'b13';
    const count = 6;
    const shown = Array.from({ length: count }, (_, i) =>
      requestOutput(driver.freshConversation(), `call_b13_shown_${i}`, 5),
    );
    await Promise.all(shown.map((request) => binding.publish(request)));
    await waitFor('the prompts the batch resolves', () =>
      shown.every((r) => driver.messagesIn(r.conversation).length === 1),
    );
    const replica = await binding.startReplica(driver.bindingEnv(doomed), {
      TOLLGATE_ACK_WAIT_MS: String(ackWaitMs),
    });
    await waitFor('both replicas pulling', async () => (await binding.pullsWaiting()) >= 2);
    // Whatever the doomed replica asks of the platform hangs; its posts land first, as a post
    // that times out after the platform took it does. So when it dies, some of what it held
    // is on the platform unjournaled and the rest never happened.
    driver.failNext('post', { kind: 'accept_then_timeout' }, { replica: doomed, times: Infinity });
    driver.failNext('any', { kind: 'timeout' }, { replica: doomed, times: Infinity });

    const fresh = Array.from({ length: count }, (_, i) =>
      requestOutput(driver.freshConversation(), `call_b13_fresh_${i}`, 5),
    );
    const replies = shown.map((r, i) => textOutput(r.conversation, 6, `b13 reply ${i}`));
    const resolved = shown.map((r) => resolvedOutput(r, 7, bob));
    const batch: Output[] = [...fresh, ...replies, ...resolved];
    await Promise.all(batch.map((output) => binding.publish(output)));
    await waitFor('the doomed replica to be in the middle of several platform calls', () =>
      driver.callTimes('any', { replica: doomed }).length >= 3 ? true : undefined,
    );
    await replica.stop('SIGKILL');
    driver.clearFaults();

    // Its messages come back after ack_wait, its leases run out after 2 × ack_wait.
    const takeOver = { timeoutMs: 4 * ackWaitMs + 15_000 };
    await waitFor(
      'every output of the batch on the platform',
      () =>
        fresh.every((r) => driver.messagesIn(r.conversation).length > 0) &&
        shown.every((r) => {
          const messages = driver.messagesIn(r.conversation);
          return messages.length >= 2 && messages.some((m) => m.edits > 0);
        }),
      takeOver,
    );
    await allHandled(takeOver.timeoutMs);

    for (const request of fresh) {
      const messages = driver.messagesIn(request.conversation);
      expect(messages).toHaveLength(1);
      expect(messages[0].buttons.length).toBeGreaterThan(0);
      const journal = await journalFor(request);
      expect(journal.map((r) => r.type)).toEqual(['PendingApprovalPromptTracked']);
      expect(JSON.stringify(journal[0].data)).toContain(messages[0].messageId);
    }
    for (const [i, request] of shown.entries()) {
      const messages = driver.messagesIn(request.conversation);
      expect(messages).toHaveLength(2);
      const [prompt, reply] = messages;
      expect(prompt.edits).toBe(1);
      expect(prompt.buttons).toHaveLength(0);
      expect(reply.text).toContain(`b13 reply ${i}`);
      expect((await journalFor(request)).map((r) => r.type)).toEqual([
        'PendingApprovalPromptTracked',
        'PendingApprovalPromptCleared',
      ]);
    }
    expect(await deadLettersOf(batch)).toEqual([]);
  }, 180_000);

  it('B14 a replica stopped with prompts pending drains in time, keeps no lease, strands nothing', async () => {
    const stopping = 'b14';
    const count = 8;
    const replica = await binding.startReplica(driver.bindingEnv(stopping), {
      TOLLGATE_ACK_WAIT_MS: String(ackWaitMs),
    });
    await waitFor('both replicas pulling', async () => (await binding.pullsWaiting()) >= 2);
    const requests = Array.from({ length: count }, (_, i) =>
      requestOutput(driver.freshConversation(), `call_b14_${i}`, 5),
    );
    await Promise.all(requests.map((request) => binding.publish(request)));
    await waitFor('every prompt posted', () =>
      requests.every((r) => driver.messagesIn(r.conversation).length === 1),
    );
    // Two processes on one durable share the work.
    const postedByReplica = driver.callTimes('post', { replica: stopping }).length;
    expect(postedByReplica).toBeGreaterThan(0);
    expect(postedByReplica).toBeLessThan(count);

    // The replica's platform calls now hang, so it is mid-call when told to stop.
    driver.failNext('any', { kind: 'timeout' }, { replica: stopping, times: Infinity });
    const refreshes = requests.map((r) => updateOutput(r, 'RefreshedAfterRestart', 9));
    await Promise.all(refreshes.map((output) => binding.publish(output)));
    await waitFor('the replica to be in the middle of an edit', () =>
      driver.callTimes('edit', { replica: stopping }).length > 0 ? true : undefined,
    );
    const pid = replica.child.pid;
    const stoppedAt = Date.now();
    const exit = await replica.stop('SIGTERM');
    const stopMs = Date.now() - stoppedAt;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(stopMs).toBeLessThan(REPLICA_DRAIN_MS);
    // Everything it held went back released: no prompt waits on the lease of a process gone.
    const leases = await binding.liveLeaseOwners();
    expect(leases.filter((owner) => owner.includes(`:${pid}:`))).toEqual([]);
    driver.clearFaults();

    await waitFor(
      'every prompt refreshed',
      () => requests.every((r) => driver.messagesIn(r.conversation)[0]?.edits === 1),
      RETRY_WAIT,
    );
    await Promise.all(requests.map((r) => binding.publish(resolvedOutput(r, 10))));
    await waitFor(
      'every prompt resolved',
      () => requests.every((r) => driver.messagesIn(r.conversation)[0]?.edits === 2),
      RETRY_WAIT,
    );
    await allHandled();
    for (const request of requests) {
      const messages = driver.messagesIn(request.conversation);
      expect(messages).toHaveLength(1);
      expect(messages[0].edits).toBe(2);
      expect(messages[0].buttons).toHaveLength(0);
      expect((await journalFor(request)).map((r) => r.type)).toEqual([
        'PendingApprovalPromptTracked',
        'PendingApprovalPromptRefreshed',
        'PendingApprovalPromptCleared',
      ]);
    }
    expect(await deadLettersOf(refreshes)).toEqual([]);
  }, 120_000);

  it('B15 malformed payloads and unknown versions are dead-lettered with a reason; consumption goes on', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b15', 5);
    const subject = `${binding.prefix}.out.${platform}.${request.sessionId}.call.call_b15.request`;
    await binding.publishRaw(subject, '{not json', `b15-garbage-${run}`);
    await binding.publishRaw(subject, JSON.stringify({ ...request, v: 2 }), `b15-v2-${run}`);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt after the bad ones');
    const letters = await waitFor('two dead letters', async () => {
      const found = (await binding.deadLetters()).filter((l) => l.originalSubject === subject);
      return found.length >= 2 ? found : undefined;
    });
    expect(letters.map((l) => l.reason)).toEqual([
      expect.stringContaining('invalid_json'),
      expect.stringContaining('unknown_version'),
    ]);
    expect(letters.every((l) => l.subject === `${binding.prefix}.dlq.${platform}-binding`)).toBe(
      true,
    );
    await waitFor('nothing left pending', async () => {
      const state = await binding.consumerState();
      return state.ackPending === 0 && state.pending === 0 ? true : undefined;
    });
  });
});
