import type { Conversation, Platform } from '@tollgate/protocol';
import { BindingFixture } from '../support/binding.fixture';
import { textOutput } from '../support/outputs';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';

/**
 * X19 (issue 19): `@bot !echo {"text":"\ud800"}` made the agent's reply end in a lone
 * surrogate; Slack's form encoding threw on it, the binding took that for a hiccup and held
 * the message for days, and 1,000 of them filled every unacknowledged slot. Here 1,000 such
 * replies go through each built binding as the session would publish them, then a legitimate
 * answer; the platform's rate limits are scaled away (they are not what is under test).
 */
const POISON = 1_000;
const CONVERSATIONS = 50;
/**
 * The legitimate answer's deadline, counted from when it is published once the binding has
 * taken every poison reply off the stream at least once (they need not be finished): a
 * binding stalled by them (their unacknowledged slots full) never takes the answer.
 */
const ANSWER_WITHIN_MS = 5_000;
const REPLACEMENT = '\ufffd';
/** How long 1,000 replies may take to go through a binding on a loaded machine (printed). */
const FLOOD_TAKEN_WITHIN_MS = 100_000;

const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

describe.each(platforms)('%s binding under poison replies', (platform) => {
  let driver: PlatformDriver;
  let binding: BindingFixture;

  beforeAll(async () => {
    const makeDriver = CONTRACT_DRIVERS[platform];
    if (!makeDriver) throw new Error(`no driver for ${platform}`);
    driver = makeDriver();
    await driver.start();
    binding = await BindingFixture.create(
      `${platform}-binding`,
      `poison${platform}`,
      () => driver.bindingEnv(),
      { TOLLGATE_RATE_WINDOW_DIVISOR: '1000' },
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver?.stop();
  });

  it(`X19 1,000 replies ending in a lone surrogate do not stop the ${platform} binding: each is posted with U+FFFD, nothing is dead-lettered, and a legitimate answer follows within 5 s`, async () => {
    const run = uniqueToken('x19');
    const conversations: Conversation[] = Array.from({ length: CONVERSATIONS }, () =>
      driver.freshConversation(),
    );
    const published = Date.now();
    for (let i = 0; i < POISON; i += 1) {
      const conversation = conversations[i % CONVERSATIONS];
      const seq = Math.floor(i / CONVERSATIONS) + 1;
      // Every tenth also holds a low surrogate before a high one (once sent as U+10000) and a NUL.
      const text =
        i % 10 === 0
          ? `${run} poison ${i} \udc00\ud800 nul\u0000 end\ud800`
          : `${run} poison ${i} \ud800`;
      await binding.publish(textOutput(conversation, seq, text));
    }
    await waitFor(
      'every poison reply taken by the binding',
      async () => (await binding.consumerState()).pending === 0,
      { timeoutMs: FLOOD_TAKEN_WITHIN_MS },
    );
    const takenMs = Date.now() - published;
    const legitimate = driver.freshConversation();
    const answer = `${run} the legitimate answer`;
    const answerPublished = Date.now();
    await binding.publish(textOutput(legitimate, 1, answer));

    const shown = await waitFor(
      'the legitimate answer on the platform',
      () => driver.messagesIn(legitimate).find((m) => m.text.includes(answer)),
      { timeoutMs: ANSWER_WITHIN_MS },
    );
    const answeredMs = Date.now() - answerPublished;
    expect(shown.text).toContain(answer);

    const poisoned = await waitFor(
      `all ${POISON} poison replies posted`,
      () => {
        const posted = driver.messages().filter((m) => m.text.includes(`${run} poison `));
        return posted.length >= POISON ? posted : false;
      },
      { timeoutMs: FLOOD_TAKEN_WITHIN_MS },
    );
    const allPostedMs = Date.now() - published;
    console.log(
      `X19 ${platform}: ${POISON} poison replies taken in ${takenMs} ms; the legitimate ` +
        `answer posted ${answeredMs} ms after it was published; all ${POISON} posted ` +
        `${allPostedMs} ms after the first`,
    );
    expect(poisoned).toHaveLength(POISON);
    for (const message of poisoned) expectSafe(message);
    const tenth = poisoned.find((m) => m.text.includes(`${run} poison 10 `));
    expect(tenth?.text).toContain(
      `${REPLACEMENT}${REPLACEMENT} nul${REPLACEMENT} end${REPLACEMENT}`,
    );
    expect(tenth?.text).not.toContain('\u{10000}');
    const ordinary = poisoned.find((m) => m.text.includes(`${run} poison 11 `));
    expect(ordinary?.text).toContain(`poison 11 ${REPLACEMENT}`);

    // Nothing lost: every reply was taken and acknowledged, none dead-lettered.
    await waitFor('the durable to hold nothing unacknowledged', async () => {
      const state = await binding.consumerState();
      return state.ackPending === 0 && state.pending === 0;
    });
    expect(await binding.deadLetters()).toEqual([]);
  }, 150_000);
});

function expectSafe(message: ChatMessageView): void {
  // eslint-disable-next-line no-control-regex
  expect(/[\u0000\p{Cs}]/u.test(message.text)).toBe(false);
}
