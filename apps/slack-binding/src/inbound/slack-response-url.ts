import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { SlackBindingConfig } from '../slack-binding.config';
import { SLACK_CONFIG } from '../slack-binding.tokens';

/** Where Slack's response_urls live. */
const SLACK_HOOKS_ORIGIN = 'https://hooks.slack.com';
const SLACK_API_ORIGIN = 'https://slack.com';

/** Slack drops an answer to a click after 3 s; a reply later than that is worth little. */
const REPLY_TIMEOUT_MS = 2_500;

/**
 * Tells one clicker something through the click's `response_url`: a private reply that needs
 * no channel membership and no scope, unlike chat.postEphemeral. The URL comes from a signed
 * payload, yet it is still checked against Slack's origin, so a signed-but-odd payload cannot
 * make the binding call anywhere else with what it says.
 */
@Injectable()
export class SlackResponseUrl {
  /** The one origin a reply may go to. */
  private readonly origin: string;

  constructor(
    @Inject(SLACK_CONFIG) config: Pick<SlackBindingConfig, 'SLACK_API_URL'>,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    // A binding pointed at a stand-in (SLACK_API_URL) talks to no real Slack: its clicks'
    // response_urls are the stand-in's.
    const api = new URL(config.SLACK_API_URL).origin;
    this.origin = api === SLACK_API_ORIGIN ? SLACK_HOOKS_ORIGIN : api;
  }

  /** True once Slack took the reply; false, and a log line, for anything else. */
  async reply(responseUrl: string | undefined, text: string): Promise<boolean> {
    if (responseUrl === undefined) return false;
    let url: URL;
    try {
      url = new URL(responseUrl);
    } catch {
      this.logger.warn('a click carried a response_url that is not a URL; not replying');
      return false;
    }
    if (url.origin !== this.origin) {
      this.logger.warn(
        { origin: url.origin },
        'a click carried a foreign response_url; not replying',
      );
      return false;
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
        signal: AbortSignal.timeout(REPLY_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.ok) return true;
      this.logger.warn({ status: response.status }, 'Slack refused a response_url reply');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not reach a response_url');
    }
    return false;
  }
}
