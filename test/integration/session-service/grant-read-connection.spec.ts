import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import { SESSION_SCHEMA_MIGRATIONS, ToolGrantsRepository } from '@tollgate/session-read-model';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../../apps/session-service/src/model/scripted-model.client';
import { requestApproval } from '../../../apps/session-service/src/session/request-approval';
import { decideUserMessage } from '../../../apps/session-service/src/session/domain/session.decider';
import { driveTurn } from '../../../apps/session-service/src/session/drive-turn';
import type { SessionDeps } from '../../../apps/session-service/src/session/domain/session-deps';
import { defaultToolPolicy } from '../../../apps/session-service/src/tools/tool-policy';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { apiApprovalRequest, newClientId } from '../../support/api-approval-requests';
import { alice, freshConversation, userMessage } from '../../support/commands';
import { createTestSchema } from '../../support/database';

/**
 * D2: a decision holds at most one pooled connection, grant reads included. With a pool of one
 * connection, a grant read from a second one would wait for the connection its own decision
 * holds until the pool's connect timeout; read through the decision's own, it just answers.
 */
describe('D2 — grant reads go through the decision’s own connection', () => {
  const schema = createTestSchema('grantconn');
  let pool: DataSource;
  let store: SessionStore;
  let deps: SessionDeps;

  beforeAll(async () => {
    pool = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SCHEMA_MIGRATIONS,
      applicationName: 'grant-read-connection',
      poolSize: 1,
      connectTimeoutMs: 3_000,
    });
    await pool.initialize();
    await prepareSchemaAndMigrate(pool, pino({ level: 'silent' }));
    store = new SessionStore(pool, new Subjects('grantconn'), 'outbox_grantconn');
    deps = {
      model: new ScriptedModelClient(),
      tools: builtInTools(),
      policy: defaultToolPolicy(),
      grants: new ToolGrantsRepository(async () => pool),
    };
  });

  afterAll(async () => {
    await pool.destroy();
    await schema.drop();
  });

  async function grantAlways(workspaceId: string, toolName: string, clientId: string) {
    await pool.query(
      `INSERT INTO tool_grants (platform, workspace_id, person_id, tool_name, client_id,
         granted_by, session_id, granted_at)
       VALUES ('slack', $1, $2, $3, $4, $5, 'earlier-session', now())`,
      [workspaceId, alice.id, toolName, clientId, JSON.stringify(alice)],
    );
  }

  async function eventTypes(sessionId: string): Promise<string[]> {
    const rows = await pool.query<{ type: string }[]>(
      `SELECT type FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return rows.map((r) => r.type);
  }

  it('D2 an API approval an approver’s "Always allow" covers is decided on a one-connection pool', async () => {
    const route = freshConversation();
    const clientId = newClientId();
    await grantAlways(route.workspaceId, 'Bash', clientId);
    const request = apiApprovalRequest(route, clientId, [alice]);

    await store.decide(request.sessionId, request.id, (recorder) =>
      requestApproval(recorder, request, deps),
    );

    expect(await eventTypes(request.sessionId)).toEqual([
      'SessionStarted',
      'ApiApprovalRequested',
      'ApiApprovalDecided',
    ]);
  });

  it('D2 a chat call the requester’s "Always allow" covers runs on a one-connection pool', async () => {
    const chat = freshConversation();
    await grantAlways(chat.workspaceId, 'write_note', '');
    const sessionId = deriveSessionId(chat);

    await store.decide(sessionId, 'grantconn-msg', (recorder) => {
      decideUserMessage(recorder, userMessage(chat, '!write_note {"text":"x"}', { sender: alice }));
      return driveTurn(recorder, deps);
    });

    const types = await eventTypes(sessionId);
    expect(types).toContain('ToolCallGranted');
    expect(types).not.toContain('ToolApprovalRequested');
    expect(types.at(-1)).toBe('TurnCompleted');
  });
});
