import type { ProviderMessage } from '@tollgate/session-read-model';
import { fromChatReply, toChatMessage, toChatRequest } from './openai-chat.client';

describe('OpenAI chat-completions mapping', () => {
  const history: ProviderMessage[] = [
    { role: 'user', content: 'note that down' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ callId: 'call_a', toolName: 'write_note', arguments: '{"text":"milk"}' }],
    },
    { role: 'tool', callId: 'call_a', content: '1' },
    { role: 'assistant', content: 'Noted.' },
  ];

  it('sends the history as chat messages: tool calls on the assistant, results as tool messages', () => {
    expect(history.map(toChatMessage)).toEqual([
      { role: 'user', content: 'note that down' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'write_note', arguments: '{"text":"milk"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '1' },
      { role: 'assistant', content: 'Noted.' },
    ]);
  });

  it('keeps text the assistant said beside its tool calls', () => {
    expect(
      toChatMessage({
        role: 'assistant',
        content: 'Let me write that.',
        toolCalls: [{ callId: 'c', toolName: 'echo', arguments: '{}' }],
      }),
    ).toMatchObject({ content: 'Let me write that.' });
  });

  it('names the model and offers every tool as a function', () => {
    const request = toChatRequest('gpt-test', {
      messages: [{ role: 'user', content: 'hi' }],
      turnSeq: 2,
      tools: [{ name: 'echo', description: 'Repeats text' }],
    });
    expect(request).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: { name: 'echo', description: 'Repeats text', parameters: { type: 'object' } },
        },
      ],
    });
  });

  it('leaves tools out when there are none', () => {
    expect(toChatRequest('m', { messages: [], turnSeq: 1, tools: [] })).not.toHaveProperty('tools');
  });

  it('reads the content and the tool calls of the first choice', () => {
    const reply = fromChatReply(
      JSON.stringify({
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'echo', arguments: '{"text":"a"}' },
                },
                { id: 'call_2', type: 'function', function: { name: 'echo', arguments: '' } },
              ],
            },
          },
        ],
      }),
    );
    expect(reply).toEqual({
      content: '',
      toolCalls: [
        { callId: 'call_1', toolName: 'echo', arguments: '{"text":"a"}' },
        { callId: 'call_2', toolName: 'echo', arguments: '{}' },
      ],
    });
  });

  it('reads a plain answer', () => {
    expect(fromChatReply('{"choices":[{"message":{"role":"assistant","content":"Hi"}}]}')).toEqual({
      content: 'Hi',
      toolCalls: [],
    });
  });

  it('accepts arguments sent as an object', () => {
    const reply = fromChatReply(
      '{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","function":{"name":"echo","arguments":{"text":"x"}}}]}}]}',
    );
    expect(reply.toolCalls[0]?.arguments).toBe('{"text":"x"}');
  });

  it.each([
    ['not JSON', '<html>Bad gateway</html>', /not JSON/],
    ['no choices', '{"choices":[]}', /malformed completion \(choices/],
    [
      'a tool call without a name',
      '{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}}]}',
      /malformed completion/,
    ],
    [
      'two calls under one id',
      '{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"a","arguments":"{}"}},{"id":"c","function":{"name":"b","arguments":"{}"}}]}}]}',
      /same id/,
    ],
  ])('refuses a reply with %s', (_case, body, message) => {
    expect(() => fromChatReply(body)).toThrow(message);
  });
});
