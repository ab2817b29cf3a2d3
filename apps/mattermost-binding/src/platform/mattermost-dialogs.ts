import { platformSafe } from '@tollgate/binding-core';
import type { MattermostDialog } from '../rendering/mattermost-edit-dialog.renderer';
import { MattermostClient } from './mattermost-client';

/** A trigger_id lives 3 s: an open slower than this is pointless to wait for. */
const OPEN_TIMEOUT_MS = 2_500;

/**
 * G2: opens the "Edit & approve" dialog with the click's trigger_id, from the click's own
 * request (the server accepts a trigger_id for 3 s), never queued or retried and never waiting
 * on the session service.
 */
export class MattermostDialogs {
  private readonly client: MattermostClient;

  constructor(
    options: { url: string; token: string },
    /** `<MATTERMOST_PUBLIC_URL>/mattermost/dialogs`, where the submission comes back. */
    private readonly submitUrl: string,
  ) {
    this.client = new MattermostClient({ ...options, timeoutMs: OPEN_TIMEOUT_MS });
  }

  async open(triggerId: string, dialog: MattermostDialog): Promise<void> {
    await this.client.openInteractiveDialog(
      platformSafe({ trigger_id: triggerId, url: this.submitUrl, dialog: { ...dialog } }),
    );
  }
}
