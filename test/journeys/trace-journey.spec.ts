import { deriveSessionId } from '@tollgate/protocol';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import { alice } from '../support/commands';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { waitFor } from '../support/wait-for';

/**
 * (process) The session service and the Slack binding as real processes, each exporting its
 * spans over OTLP/HTTP to a receiver in the test: one user message, its prompt, the click and
 * the tool's result make one trace across both.
 */
describe('D7 one trace from a user message to the tool’s result', () => {
  let receiver: OtlpReceiver;
  let system: JourneySystem | undefined;
  let driver: PlatformDriver;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    system = await startJourneySystem('slack', 'tr', otel, otel);
    driver = system.driver;
  });

  afterAll(async () => {
    await system?.dispose();
    await receiver?.stop();
  });

  it('D7 the message, the model call, the prompt, the click, the tool run and its reply share one traceId across session-service and slack-binding', async () => {
    const { binding } = system!;
    const conversation = driver.freshConversation();
    const said = await driver.say(
      binding.url,
      conversation,
      '!write_note {"text":"trace me"}',
      alice,
    );
    expect(said.status).toBe(200);
    const posted = await waitFor('the prompt with buttons', () =>
      driver.messagesIn(conversation).find((m: ChatMessageView) => m.buttons.length > 0),
    );
    const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, posted, approve, alice)).status).toBe(200);
    await waitFor('the tool’s result in the thread', () =>
      driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
    );

    // The message's own span starts the trace; its session is the conversation's.
    const sessionId = binding.commands.find(
      (c) => c.command.conversation.channelId === conversation.channelId,
    )!.command.sessionId;
    const start = await waitFor('the binding’s span of the user message', () =>
      receiver.spans.find(
        (s) => s.name === 'binding.message' && s.attributes['tollgate.session.id'] === sessionId,
      ),
    );
    expect(start.service).toBe('slack-binding');
    expect(start.parentSpanId).toBeUndefined();

    const expected: [service: string, name: string][] = [
      ['session-service', 'session.decide UserMessage'],
      ['session-service', 'model.complete'],
      ['slack-binding', 'platform postPrompt'],
      ['slack-binding', 'binding.click'],
      ['session-service', 'session.decide ToolInteractionResponse'],
      ['session-service', 'tool write_note'],
      ['slack-binding', 'platform editPrompt'],
      ['slack-binding', 'platform postText'],
    ];
    const has = (spans: ReceivedSpan[], [service, name]: [string, string]) =>
      spans.some((s) => s.service === service && s.name === name);
    // Parented, not merely tagged: every span but the first hangs off one in the same trace,
    // and the hops between processes are NATS consumer spans. A parent ends after its children
    // and each process exports in its own batches, so a child can arrive before its parent (CI
    // saw it once): the trace is complete when no span's parent is still missing, and a parent
    // that never comes fails the wait with the orphans named.
    const orphansIn = (spans: ReceivedSpan[]) => {
      const ids = new Set(spans.map((s) => s.spanId));
      return spans.filter((s) => s !== start && !ids.has(s.parentSpanId ?? ''));
    };
    const trace = await waitFor('every step in the message’s trace, each under its parent', () => {
      const spans = receiver.inTrace(start.traceId);
      if (!expected.every((step) => has(spans, step))) return false;
      const orphans = orphansIn(spans);
      if (orphans.length > 0)
        throw new Error(
          `parent not seen for ${orphans.map((s) => `${s.service} ${s.name}`).join(', ')}`,
        );
      return spans;
    });
    expect(orphansIn(trace)).toEqual([]);
    const parentOf = (span: ReceivedSpan) => trace.find((s) => s.spanId === span.parentSpanId);
    const click = trace.find((s) => s.name === 'binding.click')!;
    expect(click.attributes['tollgate.session.id']).toBe(sessionId);
    expect(parentOf(click)?.name).toMatch(/^consume .*\.request$/);
    const decideClick = trace.find((s) => s.name === 'session.decide ToolInteractionResponse')!;
    expect(parentOf(decideClick)?.name).toMatch(/^consume /);
    expect(parentOf(parentOf(decideClick)!)?.name).toMatch(/^publish /);
    expect(parentOf(parentOf(parentOf(decideClick)!)!)).toBe(click);
    const tool = trace.find((s) => s.name === 'tool write_note')!;
    expect(parentOf(tool)).toBe(decideClick);
    expect(receiver.refused).toEqual([]);
  });

  it('D7 an answer typed as text continues the prompt’s trace as a click does', async () => {
    const { binding } = system!;
    const conversation = driver.freshConversation();
    await driver.say(binding.url, conversation, '!write_note {"text":"typed"}', alice);
    const prompt = await waitFor('the prompt with buttons', () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
    );
    const sessionId = deriveSessionId(conversation);
    // Only a prompt the binding has journaled as shown can be answered by typing (§1.3): the
    // stand-in shows the post a moment before the binding journals it, and a typed "approve"
    // in that moment is an ordinary message (CI saw it once).
    await binding.postJournaled(prompt.messageId);
    expect((await driver.say(binding.url, conversation, 'approve', alice)).status).toBe(200);
    await waitFor('the tool’s result in the thread', () =>
      driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
    );
    const answer = await waitFor('the span of the typed answer', () =>
      receiver.spans.find(
        (s) =>
          s.attributes['tollgate.answer.via'] === 'text' &&
          s.attributes['tollgate.session.id'] === sessionId,
      ),
    );
    const start = receiver.spans.find(
      (s) => s.name === 'binding.message' && s.attributes['tollgate.session.id'] === sessionId,
    )!;
    expect(answer.traceId).toBe(start.traceId);
    await waitFor('the tool run in the same trace', () =>
      receiver.inTrace(start.traceId).some((s) => s.name === 'tool write_note'),
    );
  });
});
