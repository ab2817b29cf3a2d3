import {
  type ApprovalRequest,
  type Conversation,
  type JsonObject,
  type Platform,
} from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView } from '../contract/platform-driver';
import { alice } from '../support/commands';
import { withClient } from '../support/database';
import { decidingJourney } from '../support/deciding-journey';
import { waitFor } from '../support/wait-for';
import { apiApprovalRequest, newClientId } from '../support/api-approval-requests';

/** Short, so the test sees the grant lapse; long enough for the answers before it. */
const TTL = '5s';
const TTL_MS = 5_000;

/** Bash's offer covers commands starting "ls " twice; Read's covers anything for a few seconds. */
const BASH_ALWAYS = { scope: { command: { pattern: 'ls .*' } }, uses: 2 };
const BASH_LABEL = 'Always allow command matching ls .* · 2 uses';
const READ_ALWAYS = { ttl: TTL };
const READ_LABEL = `Always allow · ${TTL}`;

const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

/**
 * (process) G3 for the approval API (issue 22): the request says what its "Always allow" gives
 * (`always`: scope, uses, ttl, as a tool policy's `always:`), the button says so, and the grant
 * an approver gives with it covers the client's later requests only within that scope, for that
 * many uses and until it lapses — read from PostgreSQL at each request, so on every replica.
 * Commands are published as approval-api's NATS user would; decisions read from
 * `<PREFIX>_DECISION` as approval-api reads them.
 */
describe.each(platforms)(
  'G3 — an API approval’s grant with scope and lifetime on %s',
  (platform) => {
    const journey = decidingJourney(platform, 'ag3');

    it('G3 API a pattern grant covers a matching request and not a non-matching one; a 2-use grant covers two and asks on the third; a TTL grant stops at expiry', async () => {
      const clientId = newClientId();
      const route: Conversation = journey.driver.freshConversation();
      const seen = new Set<string>();

      const send = async (tool: string, args: JsonObject, always: ApprovalRequest['always']) => {
        const request = apiApprovalRequest(route, clientId, [alice], {
          tool,
          arguments: args,
          ...(always === undefined ? {} : { always }),
        });
        await journey.session.send(request);
        return request;
      };
      /** A new prompt is shown for it, and the binding journaled it (it can be answered). */
      const prompted = async (request: ApprovalRequest): Promise<ChatMessageView> => {
        const posted = await waitFor(`the prompt for ${request.approvalId}`, () => {
          const found = journey.driver
            .messagesIn(route)
            .find((m) => m.buttons.length > 0 && !seen.has(m.messageId));
          if (found) seen.add(found.messageId);
          return found;
        });
        await journey.binding.postJournaled(posted.messageId);
        return posted;
      };
      const click = async (posted: ChatMessageView, label: string) => {
        const button = posted.buttons.find((b) => b.label === label);
        expect(button).toBeDefined();
        expect(
          (await journey.driver.click(journey.binding.url, posted, button!, alice)).status,
        ).toBe(200);
      };
      /** Asked: a prompt is shown, nothing decided until Alice denies it. */
      const asked = async (request: ApprovalRequest) => {
        await click(await prompted(request), 'Deny');
        expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
          status: 'denied',
          decision: { via: 'click' },
        });
      };
      const byGrant = async (request: ApprovalRequest) =>
        expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
          status: 'approved',
          decision: { option: 'approve_always', via: 'grant', by: { id: alice.id } },
        });
      const usesLeft = () =>
        withClient(async (client) => {
          const rows = await client.query<{ uses_left: number }>(
            `SELECT uses_left FROM "${journey.session.database.schema}".tool_grants
            WHERE client_id = $1 AND tool_name = 'Bash'`,
            [clientId],
          );
          return rows.rows[0]?.uses_left;
        });

      // Alice gives Bash's "Always allow" as the request offers it, and the button says what.
      const first = await send('Bash', { command: 'ls /srv/notes' }, BASH_ALWAYS);
      await click(await prompted(first), BASH_LABEL);
      expect(await journey.decisions.waitFor(first.approvalId)).toMatchObject({
        status: 'approved',
        decision: { option: 'approve_always', via: 'click' },
      });

      // A matching request is approved unasked and takes a use; a non-matching one is asked.
      await byGrant(await send('Bash', { command: 'ls /tmp' }, BASH_ALWAYS));
      expect(await usesLeft()).toBe(1);
      await asked(await send('Bash', { command: 'rm -rf /srv' }, BASH_ALWAYS));
      expect(await usesLeft()).toBe(1);

      // The second use is taken unasked; the third request is asked.
      await byGrant(await send('Bash', { command: 'ls /var' }, BASH_ALWAYS));
      expect(await usesLeft()).toBe(0);
      await asked(await send('Bash', { command: 'ls /etc' }, BASH_ALWAYS));

      // Read's grant covers any arguments until it lapses; then Read is asked again.
      const read = await send('Read', { file_path: '/srv/a' }, READ_ALWAYS);
      await click(await prompted(read), READ_LABEL);
      await journey.decisions.waitFor(read.approvalId);
      await byGrant(await send('Read', { file_path: '/srv/b' }, READ_ALWAYS));
      await waitFor(
        "Read's grant to lapse",
        () =>
          withClient(async (client) => {
            const rows = await client.query(
              `SELECT 1 FROM "${journey.session.database.schema}".tool_grants
              WHERE client_id = $1 AND tool_name = 'Read' AND expires_at <= clock_timestamp()`,
              [clientId],
            );
            return rows.rowCount === 1 ? true : undefined;
          }),
        { timeoutMs: TTL_MS + 10_000, intervalMs: 250 },
      );
      await asked(await send('Read', { file_path: '/srv/c' }, READ_ALWAYS));
    });
  },
);
