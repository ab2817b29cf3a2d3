import { deriveSessionId, type Person } from '@tollgate/protocol';
import type { ChatMessageView } from '../contract/platform-driver';
import { alice, bob } from '../support/commands';
import { withClient } from '../support/database';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { sessionLogLines } from '../support/session-log-lines';
import { waitFor } from '../support/wait-for';
import { tollgate } from '../support/tollgate-cli';

/** Short, so the test sees a grant lapse; long enough for the answers before it. */
const TTL = '6s';
const TTL_MS = 6_000;
const ASK = '!write_note {"text":"x14"}';

/**
 * X14 (issue 19): "Allow in this chat" could not be listed, revoked or expired, and on Discord
 * a chat is the whole channel for ever. Now it is a grant in `session_grants`: `tollgate grants`
 * lists and revokes it, it lapses after TOLLGATE_SESSION_GRANT_TTL, and in a Discord channel it
 * still covers only its giver's own messages. Driven through the built session-service, the
 * Discord binding and the CLI.
 */
describe('X14 — "Allow in this chat" is a real grant (process, discord)', () => {
  let system: JourneySystem | undefined;

  beforeAll(async () => {
    // Debug logs name each command and output handled, with its time: a prompt that never
    // shows then says whether the session, the outbox or the binding held it.
    system = await startJourneySystem(
      'discord',
      'g',
      { TOLLGATE_SESSION_GRANT_TTL: TTL, LOG_LEVEL: 'debug' },
      { LOG_LEVEL: 'debug' },
    );
  });

  afterAll(async () => {
    await system?.dispose();
  });

  it('X14 a session grant covers only its giver in a Discord channel, is listed and revoked by tollgate grants, and lapses after its TTL', async () => {
    const { driver, binding, session } = system!;
    const cli = { DATABASE_URL: session.database.url, DATABASE_SCHEMA: session.database.schema };
    const channel = driver.freshConversation();
    const sessionId = deriveSessionId(channel);
    const seen = new Set<string>();
    let notes = 0;

    /** The next prompt with buttons in the channel, one not seen before. */
    const nextPrompt = (what: string) =>
      waitFor(what, () => {
        const found = driver
          .messagesIn(channel)
          .find((m) => m.buttons.length > 0 && !seen.has(m.messageId));
        if (found) seen.add(found.messageId);
        return found;
      }).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await whereItStopped()}`);
      });
    /** CI once missed the last prompt: what the journal and both services did meanwhile. */
    const whereItStopped = async () => {
      const journal = (await session.journal(sessionId)).map((e) => `${e.seq} ${e.type}`);
      const logOf = (output: string | undefined) =>
        sessionLogLines([output], sessionId, { last: 12, withWarnings: true });
      return [
        `journal: ${journal.slice(-12).join(', ')}`,
        'session service:',
        ...logOf(session.process?.output()),
        'binding:',
        ...logOf(binding.process?.output()),
      ].join('\n');
    };
    const answer = async (message: ChatMessageView, label: string, person: Person) => {
      // Only a journaled post is answerable, and this one by its id: the session's earlier
      // prompts are journaled already.
      await binding.postJournaled(message.messageId);
      const button = message.buttons.find((b) => b.label === label)!;
      expect((await driver.click(binding.url, message, button, person)).status).toBe(200);
    };
    const ask = async (person: Person) => {
      expect((await driver.say(binding.url, channel, ASK, person)).status).toBe(200);
    };
    const ran = async () => {
      notes += 1;
      await waitFor(`note ${notes} written`, () =>
        driver.messagesIn(channel).find((m) => m.text.includes(`write_note: ${notes}`)),
      );
    };
    const executions = async () =>
      (await session.journal(sessionId)).filter((e) => e.type === 'ToolExecutionStarted').length;

    // Alice allows write_note in this chat; her next request runs unasked.
    await ask(alice);
    await answer(await nextPrompt("alice's first prompt"), 'Allow in this chat', alice);
    await ran();
    await ask(alice);
    await ran();
    expect(seen.size).toBe(1);

    // Bob, in the same channel (one conversation for ever), is asked: the grant is Alice's.
    await ask(bob);
    await answer(await nextPrompt("bob's prompt"), 'Deny', bob);
    await waitFor("bob's denial answered", () =>
      driver.messagesIn(channel).find((m) => /denied/i.test(m.text) && m.buttons.length === 0),
    );

    // Listed with its session and expiry, then revoked: Alice is asked again.
    const listed = await tollgate(['grants', 'list', '--platform', 'discord'], cli);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `person=${alice.id} .*tool=write_note .*session=${sessionId} kind=session expires=\\S+Z`,
      ),
    );
    expect(listed.stdout).not.toContain(`person=${bob.id}`);
    const revoked = await tollgate(
      ['grants', 'revoke', '--person', alice.id, '--tool', 'write_note'],
      cli,
    );
    expect(revoked.stdout).toMatch(/^revoked 1 grant:\n.*kind=session/);
    const before = await executions();
    await ask(alice);
    const again = await nextPrompt('alice asked again after the revocation');
    expect(await executions()).toBe(before);

    // A new "Allow in this chat" after the revocation grants anew, and then lapses.
    await answer(again, 'Allow in this chat', alice);
    await ran();
    const lapsed = Date.now();
    await waitFor(
      'the new grant to lapse',
      () =>
        withClient(async (client) => {
          const rows = await client.query(
            `SELECT 1 FROM "${session.database.schema}".session_grants
              WHERE session_id = $1 AND person_id = $2 AND revoked_at IS NULL
                AND expires_at <= clock_timestamp()`,
            [sessionId, alice.id],
          );
          return rows.rowCount === 1;
        }),
      { timeoutMs: TTL_MS + 5_000, intervalMs: 250 },
    );
    console.log(`X14: the grant lapsed ${Date.now() - lapsed} ms after it was given (TTL ${TTL})`);
    const none = await tollgate(['grants', 'list', '--person', alice.id], cli);
    expect(none.stdout).toBe(`no grant matched person=${alice.id}\n`);
    await ask(alice);
    await answer(await nextPrompt('alice asked again after the grant lapsed'), 'Deny', alice);
  });
});
