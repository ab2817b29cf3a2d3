import { OpenAiChatClient } from '../../../apps/session-service/src/model/openai-chat.client';
import type { ModelRequest } from '../../../apps/session-service/src/model/model-client.port';
import { ModelUnavailable } from '../../../apps/session-service/src/model/model-unavailable.error';
import { ProviderLimitedModelClient } from '../../../apps/session-service/src/model/provider-limited.model-client';
import { ModelGate } from '../../support/model-gate';
import { waitFor } from '../../support/wait-for';
import { OPENAI_FAKE_KEY, OpenAiApiFake } from '@tollgate/platform-standins';

const TOOLS = [{ name: 'write_note', description: 'Stores a note' }];

function ask(text: string): ModelRequest {
  return { messages: [{ role: 'user', content: text }], turnSeq: 2, tools: TOOLS };
}

describe('OpenAI chat-completions client against a local fake of the API', () => {
  let api: OpenAiApiFake;

  beforeEach(async () => {
    api = await OpenAiApiFake.start({ apiKey: OPENAI_FAKE_KEY });
  });

  afterEach(async () => {
    await api.stop();
  });

  const client = (overrides: Partial<ConstructorParameters<typeof OpenAiChatClient>[0]> = {}) =>
    new OpenAiChatClient({
      baseUrl: api.baseUrl,
      model: 'gpt-fake',
      apiKey: OPENAI_FAKE_KEY,
      ...overrides,
    });

  it('a tool call, its result, then the final answer', async () => {
    api.script(
      {
        content: null,
        toolCalls: [{ id: 'call_x1', name: 'write_note', arguments: '{"text":"milk"}' }],
      },
      { content: 'Noted: milk.' },
    );
    const model = client();
    const first = await model.complete(ask('remember milk'));
    expect(first).toEqual({
      content: '',
      toolCalls: [{ callId: 'call_x1', toolName: 'write_note', arguments: '{"text":"milk"}' }],
    });
    const second = await model.complete({
      turnSeq: 2,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'remember milk' },
        { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
        { role: 'tool', callId: 'call_x1', content: '1' },
      ],
    });
    expect(second).toEqual({ content: 'Noted: milk.', toolCalls: [] });

    expect(api.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    expect(api.requests[0]?.authorization).toBe(`Bearer ${OPENAI_FAKE_KEY}`);
    const [opening, followUp] = api.completionRequests;
    expect(opening).toMatchObject({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'remember milk' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'write_note',
            description: 'Stores a note',
            parameters: { type: 'object' },
          },
        },
      ],
    });
    expect(followUp?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_x1',
            type: 'function',
            function: { name: 'write_note', arguments: '{"text":"milk"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_x1', content: '1' },
    ]);
  });

  it('takes the base URL with or without a trailing slash', async () => {
    api.script({ content: 'one' }, { content: 'two' });
    await expect(client({ baseUrl: `${api.baseUrl}/` }).complete(ask('a'))).resolves.toMatchObject({
      content: 'one',
    });
    await expect(client({ baseUrl: `${api.baseUrl}//` }).complete(ask('b'))).resolves.toMatchObject(
      { content: 'two' },
    );
    expect(api.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
  });

  it('a 500 is an error naming the status', async () => {
    api.script({ status: 500, body: '{"error":{"message":"The server had an error"}}' });
    await expect(client().complete(ask('hi'))).rejects.toThrow(
      'the model API answered 500: {"error":{"message":"The server had an error"}}',
    );
  });

  it('S14 a 429 is retried after its Retry-After, then the answer comes', async () => {
    api.script(
      { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '1' } },
      { content: 'there you are' },
    );
    const limited = new ProviderLimitedModelClient(client(), {
      maxConcurrency: 4,
      retryBaseMs: 10,
      retryMaxMs: 100,
      giveUpMs: 10_000,
    });
    await expect(limited.complete(ask('hi'))).resolves.toMatchObject({ content: 'there you are' });
    const [first, second] = api.requests;
    // The provider asked for a second; the growing delay alone would have been 10 ms.
    expect(second.at - first.at).toBeGreaterThanOrEqual(990);
  });

  it('S14 a 503 without Retry-After is retried with a growing delay until the give-up time, then fails', async () => {
    api.script(
      { status: 503, body: 'down' },
      { status: 503, body: 'down' },
      { status: 503, body: 'down' },
      { status: 503, body: 'still down' },
    );
    const limited = new ProviderLimitedModelClient(client(), {
      maxConcurrency: 4,
      retryBaseMs: 100,
      retryMaxMs: 1_000,
      giveUpMs: 1_000,
    });
    const error = await limited.complete(ask('hi')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelUnavailable);
    // 100, 200, 400 ms; the next delay (800 ms) would pass the give-up time.
    const gaps = api.requests.slice(1).map((r, i) => r.at - api.requests[i].at);
    expect(gaps).toHaveLength(3);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
  });

  it('S14 never more calls at the provider than MODEL_MAX_CONCURRENCY; waiting calls go in order', async () => {
    const gate = new ModelGate();
    await api.stop();
    api = await OpenAiApiFake.start({
      apiKey: OPENAI_FAKE_KEY,
      fallback: (request) => ({
        gate: gate.closed,
        reply: { content: String(request.messages.at(-1)?.content) },
      }),
    });
    const limited = new ProviderLimitedModelClient(client(), {
      maxConcurrency: 3,
      retryBaseMs: 10,
      retryMaxMs: 100,
      giveUpMs: 10_000,
    });
    const replies = Array.from({ length: 7 }, (_, i) => limited.complete(ask(`q${i}`)));
    await waitFor('3 calls at the provider', () => api.inFlight === 3);
    gate.open();
    const answers = await Promise.all(replies);
    expect(answers.map((a) => a.content)).toEqual(Array.from({ length: 7 }, (_, i) => `q${i}`));
    expect(api.peakInFlight).toBe(3);
  });

  it('no answer within the timeout is an error saying so', async () => {
    api.script({ hang: true });
    const started = Date.now();
    await expect(client({ timeoutMs: 300 }).complete(ask('hi'))).rejects.toThrow(
      'the model API did not answer within 300 ms',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a wrong key is refused, and the error does not carry the key', async () => {
    const wrongKey = 'sk-not-the-right-one';
    const error = await client({ apiKey: wrongKey })
      .complete(ask('hi'))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(/^the model API answered 401: .*Incorrect API key/);
    expect(error?.message).not.toContain(wrongKey);
    expect(api.requests[0]).toMatchObject({
      authorization: `Bearer ${wrongKey}`,
      reply: 'unauthorized',
    });
  });

  it('no key sends no Authorization header', async () => {
    const open = await OpenAiApiFake.start();
    try {
      open.script({ content: 'hello' });
      const model = new OpenAiChatClient({ baseUrl: open.baseUrl, model: 'm' });
      await expect(model.complete(ask('hi'))).resolves.toEqual({ content: 'hello', toolCalls: [] });
      expect(open.requests[0]?.authorization).toBeUndefined();
    } finally {
      await open.stop();
    }
  });

  it('a 200 whose body is not a completion is an error', async () => {
    api.script({ malformed: '{"object":"list","data":[]}' });
    await expect(client().complete(ask('hi'))).rejects.toThrow(/malformed completion/);
  });

  it('an unreachable server is an error', async () => {
    const gone = api.baseUrl;
    await api.stop();
    await expect(client({ baseUrl: gone }).complete(ask('hi'))).rejects.toThrow(
      /the model API could not be reached: .*ECONNREFUSED/,
    );
  });
});
