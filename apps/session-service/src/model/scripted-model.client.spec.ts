import type { ProviderMessage } from '@tollgate/session-read-model';
import type { ModelRequest } from './model-client.port';
import { parseScriptedMessage, ScriptedModelClient } from './scripted-model.client';

const model = new ScriptedModelClient();

function ask(messages: ProviderMessage[], turnSeq = 2): Promise<unknown> {
  const request: ModelRequest = { messages, turnSeq, tools: [] };
  return model.complete(request);
}

const user = (content: string): ProviderMessage => ({ role: 'user', content });

describe('scripted model (docs/protocol.md §6)', () => {
  describe('given a user message', () => {
    it('answers plain text with "You said: <text>"', async () => {
      await expect(ask([user('hello there')])).resolves.toEqual({
        content: 'You said: hello there',
        toolCalls: [],
      });
    });

    it('turns each `!<tool> <JSON object>` line into one call, ids call_<turnSeq>_<i>', async () => {
      const text = [
        'please do these',
        '!echo {"text":"hi"}',
        'and then',
        '  !write_note {"text":"x"}  ',
        '!echo {"text":"bye"}',
      ].join('\n');

      await expect(ask([user(text)], 7)).resolves.toEqual({
        content: '',
        toolCalls: [
          { callId: 'call_7_1', toolName: 'echo', arguments: '{"text":"hi"}' },
          { callId: 'call_7_2', toolName: 'write_note', arguments: '{"text":"x"}' },
          { callId: 'call_7_3', toolName: 'echo', arguments: '{"text":"bye"}' },
        ],
      });
    });

    it('reads lines split by CRLF as well', async () => {
      const reply = (await ask([user('!echo {"text":"a"}\r\n!echo {"text":"b"}')])) as {
        toolCalls: { callId: string }[];
      };

      expect(reply.toolCalls.map((c) => c.callId)).toEqual(['call_2_1', 'call_2_2']);
    });

    it('makes no call for a line whose JSON does not parse, and says so', async () => {
      await expect(ask([user('!write_note {"text": nope')])).resolves.toEqual({
        content: 'cannot parse arguments for write_note',
        toolCalls: [],
      });
    });

    it('treats JSON that is not an object as unparsable', async () => {
      await expect(ask([user('!echo [1,2]\n!echo "hi"')])).resolves.toEqual({
        content: 'cannot parse arguments for echo\ncannot parse arguments for echo',
        toolCalls: [],
      });
    });

    it('still calls the tools of the lines that parse', async () => {
      await expect(ask([user('!echo {"text":"hi"}\n!write_note {oops')])).resolves.toEqual({
        content: '',
        toolCalls: [{ callId: 'call_2_1', toolName: 'echo', arguments: '{"text":"hi"}' }],
      });
    });

    it('calls a tool whatever its name; the registry decides whether it exists', async () => {
      await expect(ask([user('!launch_rockets {}')])).resolves.toMatchObject({
        toolCalls: [{ callId: 'call_2_1', toolName: 'launch_rockets', arguments: '{}' }],
      });
    });
  });

  describe('given the results of a batch', () => {
    const batch: ProviderMessage[] = [
      user('!write_note {"text":"x"}\n!echo {"text":"hi"}\n!nope {"a":1}\n!echo {bad'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { callId: 'call_2_1', toolName: 'write_note', arguments: '{"text":"x"}' },
          { callId: 'call_2_2', toolName: 'echo', arguments: '{"text":"hi"}' },
          { callId: 'call_2_3', toolName: 'nope', arguments: '{"a":1}' },
        ],
      },
      // Results arrive in execution order, not batch order.
      { role: 'tool', callId: 'call_2_2', content: 'hi' },
      { role: 'tool', callId: 'call_2_3', content: 'unknown tool' },
      { role: 'tool', callId: 'call_2_1', content: 'denied' },
    ];

    it('lists each call on its own line in batch order, then the unparsable lines', async () => {
      await expect(ask(batch)).resolves.toEqual({
        content: [
          'write_note: denied',
          'echo: hi',
          'nope: unknown tool',
          'cannot parse arguments for echo',
        ].join('\n'),
        toolCalls: [],
      });
    });

    it('summarizes only the last batch of the history', async () => {
      const later: ProviderMessage[] = [
        ...batch,
        { role: 'assistant', content: 'earlier reply' },
        user('!echo {"text":"again"}'),
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ callId: 'call_9_1', toolName: 'echo', arguments: '{"text":"again"}' }],
        },
        { role: 'tool', callId: 'call_9_1', content: 'again' },
      ];

      await expect(ask(later, 9)).resolves.toEqual({ content: 'echo: again', toolCalls: [] });
    });
  });

  it('is deterministic: the same history gets the same reply', async () => {
    const history = [user('!echo {"text":"hi"}\n!write_note {"text":"x"}')];

    expect(await ask(history, 4)).toEqual(await ask(history, 4));
  });

  it('parseScriptedMessage ignores lines that are not tool lines', () => {
    expect(parseScriptedMessage('hi\n!echo\n! echo {}\necho {"text":"x"}')).toEqual({
      calls: [],
      unparsable: [],
    });
  });
});
