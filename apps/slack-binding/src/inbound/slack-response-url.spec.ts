import { SlackApiFake } from '@tollgate/platform-standins';
import pino from 'pino';
import { SlackResponseUrl } from './slack-response-url';

describe('a click’s response_url reply', () => {
  const slack = new SlackApiFake();
  let replier: SlackResponseUrl;

  beforeAll(async () => {
    const { apiUrl } = await slack.start();
    replier = new SlackResponseUrl({ SLACK_API_URL: apiUrl }, pino({ level: 'silent' }));
  });
  afterAll(() => slack.stop());

  it('shows the clicker alone the text, in the clicked thread', async () => {
    const url = slack.responseUrlFor({ channel: 'C1', user: 'U1', threadTs: '1.000100' });
    await expect(replier.reply(url, 'Click again.')).resolves.toBe(true);
    expect(slack.ephemerals).toEqual([
      expect.objectContaining({
        channel: 'C1',
        user: 'U1',
        thread_ts: '1.000100',
        text: 'Click again.',
      }),
    ]);
  });

  it.each([
    [
      'Slack’s own hooks, when the binding talks to a stand-in',
      'https://hooks.slack.com/actions/T/1/x',
    ],
    ['another host', 'http://127.0.0.1:1/actions/x'],
    ['not a URL', 'not a url'],
    ['absent', undefined],
  ])('does not call a response_url that is %s', async (_case, url) => {
    const before = slack.ephemerals.length;
    await expect(replier.reply(url, 'Click again.')).resolves.toBe(false);
    expect(slack.ephemerals).toHaveLength(before);
  });

  it('answers false once the URL is used up, as Slack allows five uses', async () => {
    const url = slack.responseUrlFor({ channel: 'C1', user: 'U2' });
    for (let use = 0; use < 5; use += 1) await expect(replier.reply(url, 'n')).resolves.toBe(true);
    await expect(replier.reply(url, 'n')).resolves.toBe(false);
  });

  it('calls no stand-in when talking to Slack itself', async () => {
    const real = new SlackResponseUrl(
      { SLACK_API_URL: 'https://slack.com/api/' },
      pino({ level: 'silent' }),
    );
    const url = slack.responseUrlFor({ channel: 'C1', user: 'U3' });
    await expect(real.reply(url, 'n')).resolves.toBe(false);
    expect(slack.ephemerals.filter((e) => e.user === 'U3')).toHaveLength(0);
  });
});
