import type { EditForm } from '@tollgate/binding-core';
import { platformSafe } from '@tollgate/binding-core';
import { LogLevel, WebClient } from '@slack/web-api';
import {
  type EditModalMetadata,
  renderSlackEditModal,
} from '../rendering/slack-edit-modal.renderer';

/** A trigger_id lives 3 s: a views.open slower than this is pointless to wait for. */
const OPEN_TIMEOUT_MS = 2_500;

/**
 * G2: opens the "Edit & approve" modal with the click's trigger_id, at once, from the click's
 * own request: Slack accepts a trigger_id only within 3 s of the click, so this is never
 * queued, paced or retried (a retry would come too late), and never waits on the session.
 */
export class SlackEditFormOpener {
  private readonly client: WebClient;

  constructor(options: { token: string; apiUrl: string }) {
    this.client = new WebClient(options.token, {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: OPEN_TIMEOUT_MS,
      logLevel: LogLevel.ERROR,
    });
  }

  async open(triggerId: string, form: EditForm, metadata: EditModalMetadata): Promise<void> {
    await this.client.views.open(
      platformSafe({ trigger_id: triggerId, view: renderSlackEditModal(form, metadata) }),
    );
  }
}
