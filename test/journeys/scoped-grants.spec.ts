import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSessionId, type Person, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView } from '../contract/platform-driver';
import { alice } from '../support/commands';
import { withClient } from '../support/database';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { tollgate } from '../support/tollgate-cli';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** Short, so the test sees the grant lapse; long enough for the answers before it. */
const TTL = '5s';
const TTL_MS = 5_000;

/**
 * write_note's "Always allow" covers notes starting "todo: " and two calls; echo's covers
 * any text for a few seconds. Two tools, so one running system shows all three limits.
 */
const POLICY = `tools:
  write_note:
    mode: approval
    always: { scope: { text: { pattern: "todo: .*" } }, uses: 2 }
  echo:
    mode: approval
    always: { ttl: ${TTL} }
`;
const NOTE_ALWAYS = 'Always allow text matching todo: .* · 2 uses';
const ECHO_ALWAYS = `Always allow · ${TTL}`;

const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

/**
 * G3 (issue 22): "Always allow" with the scope, number of uses and lifetime the tool's policy
 * offers, through each platform's binding, the built session-service and the CLI. The button
 * says what it gives; the grant covers what it says and no more, and stops at once.
 */
describe.each(platforms)('G3 — grants with scope and lifetime on %s', (platform) => {
  let system: JourneySystem | undefined;
  const policyFile = join(tmpdir(), `${uniqueToken('g3policy')}.yaml`);

  beforeAll(async () => {
    writeFileSync(policyFile, POLICY);
    system = await startJourneySystem(platform, 'g3', { TOOL_POLICY_FILE: policyFile });
  });

  afterAll(async () => {
    await system?.dispose();
    rmSync(policyFile, { force: true });
  });

  it('G3 a pattern grant covers a matching call and not a non-matching one; a 2-use grant covers two calls and asks on the third; a TTL grant stops at expiry', async () => {
    const { driver, binding, session } = system!;
    const cli = { DATABASE_URL: session.database.url, DATABASE_SCHEMA: session.database.schema };
    const channel = driver.freshConversation();
    const sessionId = deriveSessionId(channel);
    const seen = new Set<string>();
    let replies = 0;

    const nextPrompt = (what: string) =>
      waitFor(what, () => {
        const found = driver
          .messagesIn(channel)
          .find((m) => m.buttons.length > 0 && !seen.has(m.messageId));
        if (found) seen.add(found.messageId);
        return found;
      });
    const answer = async (message: ChatMessageView, label: string, person: Person) => {
      // Only a journaled post is answerable, and this one by its id: the session's earlier
      // prompts are journaled already.
      await binding.postJournaled(message.messageId);
      const button = message.buttons.find((b) => b.label === label);
      expect(button).toBeDefined();
      expect((await driver.click(binding.url, message, button!, person)).status).toBe(200);
    };
    const ask = async (line: string) => {
      expect((await driver.say(binding.url, channel, line, alice)).status).toBe(200);
    };
    /** The next turn has ended (a turn that asks parks instead, so this also says none was asked). */
    const replied = async (result: string) => {
      replies += 1;
      const count = replies;
      await waitFor(`turn ${count} ends with ${result}`, async () => {
        const journal = await session.journal(sessionId);
        if (journal.filter((e) => e.type === 'TurnCompleted').length >= count) return true;
        throw new Error(`journal: ${journal.map((e) => e.type).join(', ')}`);
      });
      await waitFor(`the reply ${result} shown`, () =>
        driver.messagesIn(channel).find((m) => m.buttons.length === 0 && m.text.includes(result)),
      );
    };
    const covered = async () =>
      (await session.journal(sessionId)).filter((e) => e.type === 'ToolCallGranted').length;

    // Alice approves a todo note with "Always allow" as the policy offers it.
    await ask('!write_note {"text":"todo: milk"}');
    await answer(await nextPrompt('the first prompt'), NOTE_ALWAYS, alice);
    await replied('write_note: 1');

    // A matching note runs unasked and takes a use; the CLI shows the scope and what is left.
    await ask('!write_note {"text":"todo: eggs"}');
    await replied('write_note: 2');
    expect(await covered()).toBe(1);
    const listed = await tollgate(['grants', 'list', '--person', alice.id], cli);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('tool=write_note');
    expect(listed.stdout).toContain(
      `scope=${JSON.stringify(JSON.stringify({ text: { pattern: 'todo: .*' } }))}`,
    );
    expect(listed.stdout).toContain('uses=1/2');

    // A note outside the pattern is asked about.
    await ask('!write_note {"text":"rm -rf"}');
    await answer(await nextPrompt('the non-matching prompt'), 'Deny', alice);
    await replied('write_note: denied');
    expect(await covered()).toBe(1);

    // The second use runs unasked; the third call is asked about.
    await ask('!write_note {"text":"todo: bread"}');
    await replied('write_note: 3');
    expect(await covered()).toBe(2);
    await ask('!write_note {"text":"todo: jam"}');
    await answer(await nextPrompt('the prompt after the last use'), 'Deny', alice);
    await replied('write_note: denied');
    expect(await covered()).toBe(2);

    // echo's grant covers any text until it lapses, then echo asks again.
    await ask('!echo {"text":"one"}');
    await answer(await nextPrompt('the echo prompt'), ECHO_ALWAYS, alice);
    await replied('echo: one');
    await ask('!echo {"text":"two"}');
    await replied('echo: two');
    expect(await covered()).toBe(3);
    await waitFor(
      "echo's grant to lapse",
      () =>
        withClient(async (client) => {
          const rows = await client.query(
            `SELECT 1 FROM "${session.database.schema}".tool_grants
              WHERE person_id = $1 AND tool_name = 'echo' AND expires_at <= clock_timestamp()`,
            [alice.id],
          );
          return rows.rowCount === 1 ? true : undefined;
        }),
      { timeoutMs: TTL_MS + 10_000, intervalMs: 250 },
    );
    await ask('!echo {"text":"three"}');
    await answer(await nextPrompt('the echo prompt after the lapse'), 'Deny', alice);
    await replied('echo: denied');
    expect(await covered()).toBe(3);
  });
});
