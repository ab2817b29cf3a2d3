import type { Conversation, Output, Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { BindingFixture } from '../support/binding.fixture';
import { requestOutput, textOutput } from '../support/outputs';
import { waitFor } from '../support/wait-for';

/**
 * (process) Bindings are fair per session and per pacing bucket (docs/architecture.md §4.1):
 * a backlog in one conversation, or in one platform rate-limit bucket, never holds the
 * consumer slots another conversation's or bucket's work needs. The built binding, its real
 * consumer, the platform's stand-in; outputs published as the session service would.
 */
const SHOWN_WITHIN_MS = 2_000;
/** Scheduling noise on a shared two-core machine, on top of the promise being measured. */
const SLACK_MS = 1_500;
const PLATFORMS: Platform[] = ['slack', 'discord', 'mattermost'];

async function publishAll(binding: BindingFixture, outputs: readonly Output[]): Promise<void> {
  for (const output of outputs) await binding.publish(output);
}

describe.each(PLATFORMS)('D4 — %s binding fairness', (platform) => {
  let driver: PlatformDriver;
  let binding: BindingFixture;

  beforeAll(async () => {
    driver = CONTRACT_DRIVERS[platform]!();
    await driver.start();
    // The platforms' real windows (the test default paces 1000 times faster): a burst into
    // one bucket then really waits on it, as in production.
    binding = await BindingFixture.create(
      `${platform}-binding`,
      `fair${platform}`,
      () => driver.bindingEnv(),
      { TOLLGATE_RATE_WINDOW_DIVISOR: '1' },
    );
  });

  afterEach(() => driver.clearFaults());

  afterAll(async () => {
    await binding?.dispose();
    await driver?.stop();
  });

  /** Publishes `output` and waits for it in `conversation`; returns how long that took. */
  async function shownAfter(conversation: Conversation, output: Output): Promise<number> {
    const published = Date.now();
    await binding.publish(output);
    await waitFor(
      `the ${output.type} in the other conversation`,
      () => driver.messagesIn(conversation).length > 0 || undefined,
      { timeoutMs: SHOWN_WITHIN_MS + SLACK_MS, intervalMs: 10 },
    );
    return Date.now() - published;
  }

  it(`D4 ${platform}: a flood of 200 replies in one conversation, then a prompt in another: the prompt is shown within 2 s`, async () => {
    const flooded = driver.freshConversation();
    await publishAll(
      binding,
      Array.from({ length: 200 }, (_, n) => textOutput(flooded, n + 1, `flood ${n + 1}`)),
    );
    await waitFor('the flood under way', () => driver.messagesIn(flooded).length > 0 || undefined);

    const other = driver.freshConversation();
    const tookMs = await shownAfter(other, requestOutput(other, 'call_fair_1', 1));
    process.stdout.write(
      `D4 ${platform}: prompt shown ${tookMs} ms after publishing, behind a flood of 200 ` +
        `(${driver.messagesIn(flooded).length} of them shown so far)\n`,
    );
    expect(driver.messagesIn(flooded).length).toBeLessThan(200);
  });

  const burst = { slack: 150, discord: 100 } as Partial<Record<Platform, number>>;
  const burstSize = burst[platform];
  // A Mattermost binding talks to one server, whose one limit every call shares by design.
  (burstSize === undefined ? it.skip : it)(
    `D4 ${platform}: a burst of ${burstSize ?? 0} replies in one channel the stand-in rate-limits, then a reply in another ${platform === 'slack' ? 'workspace' : 'guild'}: shown within 2 s, and the busy bucket is named in /metrics`,
    async () => {
      const channel = driver.freshConversation();
      // Slack: one thread per mention, all in one channel (one chat.postMessage bucket).
      // Discord: a channel is one conversation, so the burst is one session's too.
      const conversations = Array.from({ length: burstSize! }, (_, n) =>
        platform === 'slack' ? { ...channel, threadId: `${channel.threadId}${n}` } : channel,
      );
      driver.failNext(
        'post',
        { kind: 'rate_limited', retryAfterSeconds: 1 },
        { conversation: channel, times: 10 },
      );
      await publishAll(
        binding,
        conversations.map((c, n) => textOutput(c, platform === 'slack' ? 1 : n + 1, `busy ${n}`)),
      );
      await waitFor('the channel rate-limited', () =>
        driver.callTimes('post', { conversation: channel }).length > 0 ? true : undefined,
      );

      const elsewhere = { ...driver.freshConversation(), workspaceId: `${platform}-other-ws` };
      const tookMs = await shownAfter(elsewhere, textOutput(elsewhere, 1, 'an answer elsewhere'));
      const shownInChannel = driver.messages().filter((m) => m.channelId === channel.channelId);
      process.stdout.write(
        `D4 ${platform}: answer in another ${platform === 'slack' ? 'workspace' : 'guild'} ` +
          `shown ${tookMs} ms after publishing, behind a burst of ${burstSize} in one ` +
          `rate-limited channel (${shownInChannel.length} of them shown so far)\n`,
      );
      expect(shownInChannel.length).toBeLessThan(burstSize!);

      const named = new RegExp(
        `^tollgate_pacing_waiting\\{bucket="[^"]*${channel.channelId}[^"]*"\\} [1-9]`,
        'm',
      );
      await waitFor(
        'the busy bucket named in /metrics',
        async () => named.test(await (await fetch(`${binding.url}/metrics`)).text()) || undefined,
      );
    },
  );
});
