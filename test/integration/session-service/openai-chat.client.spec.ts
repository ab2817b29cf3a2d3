import { OpenAiChatClient } from '../../../apps/session-service/src/model/openai-chat.client';
import type { ModelRequest } from '../../../apps/session-service/src/model/model-client.port';
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
