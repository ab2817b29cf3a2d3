import { withClient } from './database';
import { waitFor } from './wait-for';

/**
 * Waits until the binding whose journal lives in `schema` has journaled the platform post
 * `messageId` as showing a prompt. A binding journals a post only once the platform answered
 * it, so a stand-in shows the post a moment before the binding can take an answer on it
 * (Mattermost refuses a click in that moment 401 `wrong_post`; "approve" typed then is an
 * ordinary message): a person cannot answer inside that moment, a test can.
 *
 * By the post's own id, not "some prompt of the session": a session with an earlier prompt
 * would pass at once. A repost (R4) journals the new post as the prompt's, so it counts too.
 */
export async function postJournaled(
  schema: string,
  messageId: string,
  whose = 'the binding',
): Promise<void> {
  await waitFor(`${whose} to journal the post ${messageId}`, () =>
    withClient(async (client) => {
      const { rows } = await client.query(
        `SELECT 1 FROM "${schema}".prompt_events
          WHERE type IN ('PendingApprovalPromptTracked', 'PendingApprovalPromptReposted')
            AND data->'messageRef'->>'messageId' = $1
          LIMIT 1`,
        [messageId],
      );
      return rows.length > 0 || undefined;
    }),
  );
}
