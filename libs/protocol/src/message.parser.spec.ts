import { parseCommand, parseOutput } from './message.parser';
import type { ParseResult } from './parse-result';
import {
  aJoinSession,
  aRejected,
  aRequest,
  aResolved,
  aResponse,
  aTextOutput,
  anUpdate,
  aUserMessage,
  conversation,
  sessionId,
  without,
} from './testing/message-fixtures';

function expectRefused(result: ParseResult<unknown>, reason: string, detail: string | RegExp) {
  expect(result).toMatchObject({ ok: false, reason });
  if (!result.ok) {
    expect(result.detail).toMatch(detail);
    expect(result.detail.length).toBeLessThanOrEqual(300);
  }
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseCommand', () => {
  it.each([
    ['UserMessage', aUserMessage()],
    ['UserMessage from automation', aUserMessage({ principal: 'automation' })],
    ['UserMessage at the text limit', aUserMessage({ text: 'x'.repeat(40_000) })],
    ['JoinSession', aJoinSession()],
    ['ToolInteractionResponse', aResponse({ promptRef: '1700000002.000300' })],
    ['ToolInteractionResponse with an unknown option key', aResponse({ optionKey: 'maybe' })],
    ['a 256-character call id', aResponse({ callId: 'c.'.repeat(128) })],
  ])('accepts a %s', (_case, message) => {
    expect(parseCommand(message)).toEqual({ ok: true, value: message });
  });

  it('accepts JSON bytes and JSON text alike', () => {
    const message = aUserMessage();

    expect(parseCommand(bytes(JSON.stringify(message)))).toEqual({ ok: true, value: message });
    expect(parseCommand(JSON.stringify(message))).toEqual({ ok: true, value: message });
  });

  it('accepts an offset timestamp', () => {
    const message = aUserMessage({ occurredAt: '2024-05-01T14:00:00+02:00' });

    expect(parseCommand(message).ok).toBe(true);
  });

  it('refuses bytes that are not JSON', () => {
    expectRefused(parseCommand(bytes('{"type":')), 'invalid_json', /not JSON/);
  });

  it('refuses bytes that are not UTF-8', () => {
    expectRefused(parseCommand(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 'invalid_json', /UTF-8/);
  });

  it.each([
    ['an array', '[1,2]', /an array/],
    ['null', 'null', /null/],
    ['a string', '"hello"', /a string/],
    ['a number', '42', /a number/],
  ])('refuses %s', (_case, text, detail) => {
    expectRefused(parseCommand(text), 'not_an_object', detail);
  });

  it.each([
    ['2', 2, /got 2/],
    ['"1"', '1', /got "1"/],
    ['missing', undefined, /got nothing/],
    ['1.0 as text', '1.0', /got "1.0"/],
  ])('refuses version %s', (_case, v, detail) => {
    const message = { ...aUserMessage(), v };

    expectRefused(parseCommand(message), 'unknown_version', detail);
  });

  it('checks the version before the type', () => {
    expectRefused(
      parseCommand({ ...aUserMessage(), type: 'Shout', v: 2 }),
      'unknown_version',
      /v:/,
    );
  });

  it.each([
    ['an unknown type', 'Shout', /"Shout" is not a known command type/],
    ['no type', undefined, /nothing is not a known command type/],
    ['an output type', 'TextOutput', /"TextOutput" is not a command/],
  ])('refuses %s', (_case, type, detail) => {
    expectRefused(parseCommand({ ...aUserMessage(), type }), 'unknown_type', detail);
  });

  it.each([
    ['id', aUserMessage(), /^UserMessage: id: /],
    ['sessionId', aUserMessage(), /sessionId: /],
    ['conversation', aUserMessage(), /conversation: /],
    ['occurredAt', aUserMessage(), /occurredAt: /],
    ['sender', aUserMessage(), /sender: /],
    ['text', aUserMessage(), /text: /],
    ['callId', aResponse(), /^ToolInteractionResponse: callId: /],
    ['optionKey', aResponse(), /optionKey: /],
  ])('refuses a missing %s', (field, message, detail) => {
    expectRefused(parseCommand(without(message, field)), 'invalid_payload', detail);
  });

  it('refuses a missing nested field', () => {
    const message = { ...aUserMessage(), conversation: without(conversation, 'threadId') };

    expectRefused(parseCommand(message), 'invalid_payload', /conversation\.threadId: /);
  });

  it.each([
    ['at the top', { ...aUserMessage(), priority: 'high' }, /\(message\): .*priority/],
    [
      'in the sender',
      aUserMessage({ sender: { id: 'U1', admin: true } as never }),
      /sender: .*admin/,
    ],
    [
      'in the conversation',
      aUserMessage({ conversation: { ...conversation, teamName: 'x' } as never }),
      /conversation: .*teamName/,
    ],
    ['seq on a command', { ...aJoinSession(), seq: 1 }, /seq/],
  ])('refuses an extra field %s', (_case, message, detail) => {
    expectRefused(parseCommand(message), 'invalid_payload', detail);
  });

  it('refuses text of 40001 characters', () => {
    const message = aUserMessage({ text: 'x'.repeat(40_001) });

    expectRefused(parseCommand(message), 'invalid_payload', /^UserMessage: text: .*40000/);
  });

  it.each([
    ['a call id of 300 characters', aResponse({ callId: 'c'.repeat(300) }), /callId: .*256/],
    ['an empty call id', aResponse({ callId: '' }), /callId: /],
    ['an option key of 65 characters', aResponse({ optionKey: 'k'.repeat(65) }), /optionKey: .*64/],
    ['an empty option key', aResponse({ optionKey: '' }), /optionKey: /],
    ['a command id of 201 characters', aJoinSession({ id: 'i'.repeat(201) }), /id: .*200/],
    ['a command id with a newline', aJoinSession({ id: 'a\r\nNats-Msg-Id: b' }), /id: .*control/],
    ['an empty sender id', aUserMessage({ sender: { id: '' } }), /sender\.id: /],
    ['an unknown principal', aUserMessage({ principal: 'bot' as never }), /principal: /],
    [
      'an unknown platform',
      aUserMessage({ conversation: { ...conversation, platform: 'teams' as never } }),
      /conversation\.platform: /,
    ],
    [
      'a timestamp without a zone',
      aUserMessage({ occurredAt: '2024-05-01T12:00:00' }),
      /occurredAt: /,
    ],
    ['a timestamp that is not ISO-8601', aUserMessage({ occurredAt: 'yesterday' }), /occurredAt: /],
    ['a numeric text', { ...aUserMessage(), text: 5 }, /text: /],
  ])('refuses %s', (_case, message, detail) => {
    expectRefused(parseCommand(message), 'invalid_payload', detail);
  });

  it('refuses a session id that is not the one of its conversation', () => {
    const otherThread = { ...conversation, threadId: '1700000000.999999' };

    expectRefused(
      parseCommand(aUserMessage({ conversation: otherThread })),
      'session_mismatch',
      new RegExp(`sessionId: "${sessionId}" is not the session of its conversation`),
    );
  });

  it('refuses a session id of another platform for the same ids', () => {
    const mattermost = { ...conversation, platform: 'mattermost' as const };

    expectRefused(
      parseCommand(aJoinSession({ conversation: mattermost })),
      'session_mismatch',
      /sessionId/,
    );
  });

  it('keeps the detail bounded when the input is huge', () => {
    const keys = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`unexpected_${i}_${'k'.repeat(50)}`, 1]),
    );

    expectRefused(parseCommand({ ...aUserMessage(), ...keys }), 'invalid_payload', /unexpected_0/);
  });

  it('never throws, whatever it is given', () => {
    const cyclic: Record<string, unknown> = { v: 1 };
    cyclic.type = cyclic;
    const inputs: unknown[] = [undefined, Symbol('s'), () => 1, 10n, cyclic, new ArrayBuffer(2)];

    for (const input of inputs) {
      expect(parseCommand(input).ok).toBe(false);
    }
  });
});

describe('parseOutput', () => {
  it.each([
    ['ToolInteractionRequest', aRequest()],
    ['ToolInteractionUpdate RefreshedAfterRestart', anUpdate()],
    [
      'ToolInteractionUpdate Abandoned',
      anUpdate({ status: 'Abandoned', request: undefined, reason: 'superseded' }),
    ],
    ['ToolInteractionUpdate Expired', anUpdate({ status: 'Expired', request: undefined })],
    ['ToolInteractionResolved', aResolved()],
    ['ToolInteractionRejected with seq 0', aRejected()],
    [
      'ToolInteractionRejected with a seq',
      aRejected({ seq: 9, id: `${sessionId}:9:1`, reason: 'wrong_requester' }),
    ],
    ['TextOutput', aTextOutput()],
    ['TextOutput with seq 0', aTextOutput({ seq: 0, id: `${sessionId}:0:cmd-1`, role: 'notice' })],
    ['display text at the limit', aRequest({ displayText: 'd'.repeat(12_000) })],
  ])('accepts a %s', (_case, message) => {
    const result = parseOutput(JSON.parse(JSON.stringify(message)));

    expect(result).toEqual({ ok: true, value: JSON.parse(JSON.stringify(message)) });
  });

  it('refuses a command type', () => {
    expectRefused(parseOutput(aUserMessage()), 'unknown_type', /"UserMessage" is not an output/);
  });

  it.each([
    ['Request', aRequest({ seq: 0, id: `${sessionId}:0:cmd` })],
    ['Update', anUpdate({ seq: 0, id: `${sessionId}:0:cmd` })],
    ['Resolved', aResolved({ seq: 0, id: `${sessionId}:0:cmd` })],
  ])('refuses seq 0 on a %s, which bindings order by seq', (_case, message) => {
    expectRefused(parseOutput(message), 'invalid_payload', /seq: /);
  });

  it.each([
    ['a negative seq', aTextOutput({ seq: -1 }), /seq: /],
    ['a fractional seq', aRejected({ seq: 1.5 }), /seq: /],
    ['a seq as text', { ...aResolved(), seq: '8' }, /seq: /],
  ])('refuses %s', (_case, message, detail) => {
    expectRefused(parseOutput(message), 'invalid_payload', detail);
  });

  it('refuses display text of 12001 characters', () => {
    const message = aRequest({ displayText: 'd'.repeat(12_001) });

    expectRefused(parseOutput(message), 'invalid_payload', /displayText: .*12000/);
  });

  it('refuses output text of 40001 characters', () => {
    expectRefused(
      parseOutput(aTextOutput({ text: 't'.repeat(40_001) })),
      'invalid_payload',
      /text: /,
    );
    expectRefused(
      parseOutput(aRejected({ text: 't'.repeat(40_001) })),
      'invalid_payload',
      /text: /,
    );
  });

  it.each([
    [
      'an option label of 76 characters',
      aRequest({ options: [{ key: 'deny', label: 'l'.repeat(76), style: 'danger' }] }),
      /options\[0\]\.label: /,
    ],
    [
      'a non-standard option key',
      aRequest({ options: [{ key: 'maybe' as never, label: 'Maybe', style: 'default' }] }),
      /options\[0\]\.key: /,
    ],
    [
      'an unknown option style',
      aRequest({ options: [{ key: 'deny', label: 'Deny', style: 'red' as never }] }),
      /options\[0\]\.style: /,
    ],
    ['no options', aRequest({ options: [] }), /options: /],
    [
      'an option offered twice',
      aRequest({
        options: [
          { key: 'deny', label: 'Deny', style: 'danger' },
          { key: 'deny', label: 'No', style: 'danger' },
        ],
      }),
      /options: must not offer a key twice/,
    ],
    ['a missing principal', without(aRequest(), 'principal'), /principal: /],
    [
      'an extra field in an option',
      aRequest({ options: [{ key: 'deny', label: 'Deny', style: 'danger', url: 'x' } as never] }),
      /options\[0\]: .*url/,
    ],
    ['a call id with 257 characters', aResolved({ callId: 'c'.repeat(257) }), /callId: /],
    [
      'a resolved option key outside the standard ones',
      aResolved({ optionKey: 'maybe' as never }),
      /optionKey: /,
    ],
    ['an unknown rejection reason', aRejected({ reason: 'too_late' as never }), /reason: /],
    ['an unknown update status', anUpdate({ status: 'Deleted' as never }), /status: /],
    ['an unknown text role', aTextOutput({ role: 'system' as never }), /role: /],
  ])('refuses %s', (_case, message, detail) => {
    expectRefused(parseOutput(message), 'invalid_payload', detail);
  });

  describe('output id', () => {
    it.each([
      ['another session', aRequest({ id: `slack-00000000000000000000000000000000:3:0` })],
      ['another seq', aRequest({ id: `${sessionId}:4:0` })],
      ['the request it carries, not itself', anUpdate({ id: `${sessionId}:3:0` })],
      ['no index', aRequest({ id: `${sessionId}:3:` })],
      ['a non-numeric index', aResolved({ id: `${sessionId}:8:x` })],
      ['a leading-zero index', aTextOutput({ id: `${sessionId}:4:01` })],
      ['no command id at seq 0', aRejected({ id: `${sessionId}:0:` })],
      ['an oversize command id at seq 0', aRejected({ id: `${sessionId}:0:${'c'.repeat(201)}` })],
    ])('refuses an id naming %s', (_case, message) => {
      expectRefused(parseOutput(message), 'invalid_payload', /: id: must/);
    });
  });

  describe('ToolInteractionUpdate.request', () => {
    it('is required for RefreshedAfterRestart', () => {
      expectRefused(
        parseOutput(anUpdate({ request: undefined })),
        'invalid_payload',
        /request: is required when status is RefreshedAfterRestart/,
      );
    });

    it('is validated as a complete request envelope', () => {
      const incomplete = without(aRequest(), 'seq');

      expectRefused(
        parseOutput({ ...anUpdate(), request: incomplete }),
        'invalid_payload',
        /request\.seq: /,
      );
    });

    it('must be the request of the same call', () => {
      const otherCall = aRequest({ callId: 'call_3_2' });

      expectRefused(
        parseOutput(anUpdate({ request: otherCall })),
        'invalid_payload',
        /request: must be the request of this session and call/,
      );
    });

    it('must be the request of the same conversation', () => {
      const otherThread = { ...conversation, threadId: '1' };

      expectRefused(
        parseOutput(anUpdate({ request: aRequest({ conversation: otherThread }) })),
        'invalid_payload',
        /request: must be the request of this session and call/,
      );
    });
  });

  it('refuses a session id that is not the one of its conversation', () => {
    const otherWorkspace = { ...conversation, workspaceId: 'T0002' };

    expectRefused(
      parseOutput(aTextOutput({ conversation: otherWorkspace })),
      'session_mismatch',
      /sessionId: /,
    );
  });
});
