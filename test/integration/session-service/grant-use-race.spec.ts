import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import { SESSION_SCHEMA_MIGRATIONS, ToolGrantsRepository } from '@tollgate/session-read-model';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../../apps/session-service/src/model/scripted-model.client';
import { decideUserMessage } from '../../../apps/session-service/src/session/domain/session.decider';
import { driveTurn } from '../../../apps/session-service/src/session/drive-turn';
import type { ToolGrants } from '../../../apps/session-service/src/session/domain/tool-grants.port';
import { defaultToolPolicy } from '../../../apps/session-service/src/tools/tool-policy';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { alice, freshConversation, userMessage } from '../../support/commands';
import { createTestSchema } from '../../support/database';

const GRANTED_AT = '2026-12-01T08:00:00.000Z';

/**
 * Two replicas, each with its own pool and store, decide a message of the same person in two
 * chats of one workspace at once, under one "Always allow" with one use left. Both read the
 * grant before either takes the use (a barrier holds the reads), so only the row lock of the
 * claim can keep the use from being spent twice.
 */
describe('G3 — two replicas racing for the last use of a grant', () => {
  const schema = createTestSchema('grantrace');
  const pools: DataSource[] = [];

  beforeAll(async () => {
    for (const name of ['a', 'b']) {
      const dataSource = createDataSource({
        url: schema.url,
        schema: schema.schema,
        migrations: SESSION_SCHEMA_MIGRATIONS,
        applicationName: `grant-race-${name}`,
        poolSize: 2,
      });
      await dataSource.initialize();
      pools.push(dataSource);
    }
    await prepareSchemaAndMigrate(pools[0], pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.destroy()));
    await schema.drop();
  });

  it('G3 two replicas racing for the last use of a grant: exactly one call is covered, the other asks', async () => {
    const [chatA, chatB] = [freshConversation(), freshConversation()];
    await pools[0].query(
      `INSERT INTO tool_grants (platform, workspace_id, person_id, tool_name, client_id,
         granted_by, session_id, granted_at, uses_granted, uses_left)
       VALUES ('slack', $1, $2, 'write_note', '', $3, 'earlier-session', $4, 1, 1)`,
      [chatA.workspaceId, alice.id, JSON.stringify(alice), GRANTED_AT],
    );
    let reads = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const replicas = pools.map((pool) => {
      const repository = new ToolGrantsRepository(async () => pool);
      const grants: ToolGrants = {
        isAlwaysAllowed: (...args) => repository.isAlwaysAllowed(...args),
        alwaysGrant: async (...args) => {
          const grant = await repository.alwaysGrant(...args);
          reads += 1;
          if (reads === 2) bothRead();
          await barrier;
          return grant;
        },
      };
      const deps = {
        model: new ScriptedModelClient(),
        tools: builtInTools(),
        policy: defaultToolPolicy(),
        grants,
      };
      return { store: new SessionStore(pool, new Subjects('grantrace'), 'outbox_race'), deps };
    });

    await Promise.all(
      [chatA, chatB].map((chat, i) =>
        replicas[i].store.decide(deriveSessionId(chat), `race-${i}`, (recorder) => {
          decideUserMessage(
            recorder,
            userMessage(chat, '!write_note {"text":"race"}', { sender: alice }),
          );
          return driveTurn(recorder, replicas[i].deps);
        }),
      ),
    );

    expect(reads).toBe(2);
    const types = await Promise.all(
      [chatA, chatB].map(async (chat) =>
        (
          await pools[0].query<{ type: string }[]>(
            `SELECT type FROM session_events WHERE session_id = $1 ORDER BY seq`,
            [deriveSessionId(chat)],
          )
        ).map((r) => r.type),
      ),
    );
    const covered = types.filter((t) => t.includes('ToolCallGranted'));
    const asked = types.filter((t) => t.includes('ToolApprovalRequested'));
    expect([covered.length, asked.length]).toEqual([1, 1]);
    expect(asked[0]).not.toContain('ToolExecutionStarted');
    const [row] = await pools[0].query<{ uses_left: number }[]>(
      `SELECT uses_left FROM tool_grants WHERE person_id = $1`,
      [alice.id],
    );
    expect(row.uses_left).toBe(0);
    const used = await pools[0].query<{ n: string }[]>(
      `SELECT count(*) AS n FROM audit_log WHERE kind = 'grant_used'`,
    );
    expect(Number(used[0].n)).toBe(1);
  });
});
