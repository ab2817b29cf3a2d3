import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  appMentionEvent,
  blockActionsPayload,
  botMessageEvent,
  channelMessageEvent,
  directMessageEvent,
  eventCallback,
  interactionFormBody,
  messageChangedEvent,
  messageDeletedEvent,
  urlVerification,
} from './slack-inbound.payloads';
import { signSlackRequest } from './slack-signing';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

/** Written from Slack's documented recipe, independently of the helper under test. */
function verifies(secret: string, rawBody: string, headers: Record<string, string>): boolean {
  const basestring = `v0:${headers['x-slack-request-timestamp']}:${rawBody}`;
  const expected = Buffer.from(
    `v0=${createHmac('sha256', secret).update(basestring).digest('hex')}`,
  );
  const given = Buffer.from(headers['x-slack-signature']);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('signSlackRequest', () => {
  const clickBody = interactionFormBody(
    blockActionsPayload({
      teamId: 'T0TOLLGATE',
      channelId: 'C0APPROVALS',
      messageTs: '1700000000.000100',
      userId: 'U0ALICE',
      actionId: 'approve',
      value: 'call-1',
      actionTs: '1700000123.456789',
    }),
  );

  it('produces a v0 signature over the exact body and timestamp', () => {
    const headers = signSlackRequest(SECRET, clickBody, 1_700_000_500);

    expect(headers['x-slack-request-timestamp']).toBe('1700000500');
    expect(headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(verifies(SECRET, clickBody, headers)).toBe(true);
  });

  it('matches a known vector', () => {
    const body = 'token=xyz&team_id=T1';
    const expected = createHmac('sha256', SECRET).update(`v0:1531420618:${body}`).digest('hex');

    expect(signSlackRequest(SECRET, body, 1531420618)['x-slack-signature']).toBe(`v0=${expected}`);
  });

  it('stops verifying when the body, the timestamp or the secret differs', () => {
    const headers = signSlackRequest(SECRET, clickBody, 1_700_000_500);

    expect(verifies(SECRET, `${clickBody}&x=1`, headers)).toBe(false);
    expect(
      verifies(SECRET, clickBody, { ...headers, 'x-slack-request-timestamp': '1700000501' }),
    ).toBe(false);
    expect(verifies('another-secret', clickBody, headers)).toBe(false);
  });

  it('signs at the current time by default', () => {
    const before = Math.floor(Date.now() / 1000);

    const stamped = Number(signSlackRequest(SECRET, clickBody)['x-slack-request-timestamp']);

    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });
});

describe('inbound payload builders', () => {
  it('builds a block_actions click that survives the form encoding Slack uses', () => {
    const payload = blockActionsPayload({
      teamId: 'T0TOLLGATE',
      channelId: 'C0APPROVALS',
      messageTs: '1700000000.000200',
      threadTs: '1700000000.000100',
      userId: 'U0ALICE',
      userName: 'alice',
      actionId: 'deny',
      value: 'call-1 & more=chars',
      actionTs: '1700000123.456789',
      style: 'danger',
      buttonText: 'Deny',
    });

    const decoded = JSON.parse(new URLSearchParams(interactionFormBody(payload)).get('payload')!);

    expect(decoded).toEqual(payload);
    expect(decoded).toMatchObject({
      type: 'block_actions',
      team: { id: 'T0TOLLGATE' },
      user: { id: 'U0ALICE', username: 'alice', team_id: 'T0TOLLGATE' },
      container: {
        type: 'message',
        message_ts: '1700000000.000200',
        channel_id: 'C0APPROVALS',
        is_ephemeral: false,
      },
      channel: { id: 'C0APPROVALS' },
      message: { ts: '1700000000.000200', thread_ts: '1700000000.000100' },
      actions: [
        {
          type: 'button',
          action_id: 'deny',
          value: 'call-1 & more=chars',
          text: { type: 'plain_text', text: 'Deny' },
          action_ts: '1700000123.456789',
          style: 'danger',
        },
      ],
    });
    expect(typeof decoded.trigger_id).toBe('string');
    expect(decoded.response_url).toMatch(/^https:\/\/hooks\.slack\.com\/actions\//);
  });

  it('leaves the message out of a click on an ephemeral message', () => {
    const payload = blockActionsPayload({
      teamId: 'T1',
      channelId: 'C1',
      messageTs: '1.000100',
      userId: 'U1',
      actionId: 'approve',
      value: 'v',
      actionTs: '2.000100',
      isEphemeral: true,
    });

    expect(payload.message).toBeUndefined();
    expect(payload.container).toMatchObject({ is_ephemeral: true });
  });

  it('wraps events in an event_callback envelope', () => {
    const event = appMentionEvent({
      channelId: 'C1',
      userId: 'U1',
      text: '<@U0TOLLBOT> status',
      ts: '1.000100',
    });

    expect(eventCallback({ teamId: 'T1', event, eventId: 'Ev1', eventTime: 42 })).toMatchObject({
      type: 'event_callback',
      team_id: 'T1',
      event_id: 'Ev1',
      event_time: 42,
      event: {
        type: 'app_mention',
        channel: 'C1',
        user: 'U1',
        ts: '1.000100',
        event_ts: '1.000100',
      },
    });
    expect(urlVerification('abc')).toMatchObject({ type: 'url_verification', challenge: 'abc' });
  });

  it('builds the message events a binding must tell apart', () => {
    const base = { channelId: 'C1', userId: 'U1', text: 'hi', ts: '2.000100' };

    expect(channelMessageEvent({ ...base, threadTs: '1.000100' })).toMatchObject({
      type: 'message',
      channel_type: 'channel',
      thread_ts: '1.000100',
    });
    expect(directMessageEvent({ ...base, channelId: 'D1' })).toMatchObject({
      channel_type: 'im',
      channel: 'D1',
    });
    expect(botMessageEvent({ channelId: 'C1', text: 'prompt', ts: '3.000100' })).toMatchObject({
      type: 'message',
      bot_id: expect.any(String),
    });
    expect(
      messageChangedEvent({
        channelId: 'C1',
        eventTs: '4.000100',
        message: { ts: '2.000100', text: 'edited' },
      }),
    ).toMatchObject({ subtype: 'message_changed', message: { ts: '2.000100', text: 'edited' } });
    expect(
      messageDeletedEvent({ channelId: 'C1', eventTs: '5.000100', deletedTs: '2.000100' }),
    ).toMatchObject({ subtype: 'message_deleted', deleted_ts: '2.000100' });
  });
});
