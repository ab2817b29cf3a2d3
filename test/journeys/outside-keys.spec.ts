import { type ChatCompletionRequestBody, OpenAiApiFake } from '@tollgate/platform-standins';
import type { Platform } from '@tollgate/protocol';
import { deriveSessionId } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import { alice } from '../support/commands';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { waitFor } from '../support/wait-for';

/**
 * X16 (issue 19): call ids come from the model, so they are outside strings. A call named
 * `constructor` or `__proto__` read Object.prototype's entry from the session's records and
 * its prompt could never be answered. Here the model (the OpenAI-compatible stand-in) names
 * its calls so, and each prompt is answered through the platform, end to end.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];
const HOSTILE_IDS = ['constructor', '__proto__', 'toString'] as const;
const DONE = 'all three notes written';

function model(request: ChatCompletionRequestBody) {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: DONE };
  return {
    content: null,
    toolCalls: HOSTILE_IDS.map((id) => ({
      id,
      name: 'write_note',
      arguments: JSON.stringify({ text: `note for ${id}` }),
    })),
  };
}

describe.each(platforms)('X16 call ids that are Object.prototype names, through %s', (platform) => {
  let api: OpenAiApiFake;
  let system: JourneySystem | undefined;
  let driver: PlatformDriver;

  beforeAll(async () => {
    api = await OpenAiApiFake.start({ fallback: model });
    system = await startJourneySystem(platform, 'k', {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: api.baseUrl,
      MODEL: 'gpt-fake',
    });
    driver = system.driver;
  });

  afterAll(async () => {
    await system?.dispose();
    await api?.stop();
  });

  it(`X16 ${platform}: prompts for calls named constructor, __proto__ and toString are each answered and run once`, async () => {
    const { binding, session } = system!;
    const conversation = driver.freshConversation();
    expect((await driver.say(binding.url, conversation, 'write three notes', alice)).status).toBe(
      200,
    );
    const shown = await waitFor('three prompts with buttons', () => {
      const prompts = driver.messagesIn(conversation).filter((m) => m.buttons.length > 0);
      return prompts.length === HOSTILE_IDS.length ? prompts : undefined;
    });
    // A click is taken only on a post the binding has journaled, each by its own id.
    for (const message of shown) await binding.postJournaled(message.messageId);
    for (const message of shown) {
      const approve = message.buttons.find((b) => b.label === 'Approve once')!;
      expect((await driver.click(binding.url, message, approve, alice)).status).toBe(200);
      await waitFor(`${message.messageId} decided`, () =>
        driver
          .messagesIn(conversation)
          .find(
            (m: ChatMessageView) =>
              m.messageId === message.messageId &&
              m.buttons.length === 0 &&
              m.text.includes('Approve once'),
          ),
      );
    }
    await waitFor('the reply after the three notes', () =>
      driver.messagesIn(conversation).find((m) => m.text.includes(DONE)),
    );
    const journal = await session.journal(deriveSessionId(conversation));
    const started = journal.filter((e) => e.type === 'ToolExecutionStarted');
    expect(started.map((e) => (e.data as { callId?: string }).callId).sort()).toEqual(
      [...HOSTILE_IDS].sort(),
    );
  });
});
