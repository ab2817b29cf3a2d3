import { SESSION_SCHEMA_MIGRATIONS, ToolGrantsRepository } from '@tollgate/session-read-model';
import { auditEndedGrants } from '../../../apps/session-service/src/grants/grant-end.sweep';
import { alice, bob } from '../../support/commands';
import { migratedDataSource } from '../../support/database';

interface Row {
  kind: string;
  who: { id: string; platform?: string } | null;
  detail: Record<string, unknown>;
}

/** G4: a grant's end — revoked by an operator, lapsed, used up — is an audit entry, once. */
describe('G4 — grant ends in the audit trail', () => {
  const database = migratedDataSource('grantends', SESSION_SCHEMA_MIGRATIONS);

  const entries = async (kind: string): Promise<Row[]> =>
    database
      .current()
      .query<Row[]>(`SELECT kind, who, detail FROM audit_log WHERE kind = $1 ORDER BY seq`, [kind]);

  const always = (tool: string, columns: string, values: string) =>
    database.current().query(
      `INSERT INTO tool_grants (platform, workspace_id, person_id, tool_name, client_id,
         granted_by, session_id, granted_at${columns})
       VALUES ('slack', 'T1', $1, $2, '', $3, 's-1', now() - interval '1 hour'${values})`,
      [alice.id, tool, JSON.stringify(alice)],
    );

  it('G4 grants that lapsed or ran out are recorded grant_expired once each; a revoke is grant_revoked by its operator', async () => {
    await always('lapsed', ', expires_at', `, now() - interval '1 minute'`);
    await always('used_up', ', uses_granted, uses_left', ', 2, 0');
    await always(
      'in_force',
      ', uses_granted, uses_left, expires_at',
      `, 2, 1, now() + interval '1 hour'`,
    );
    await always('blanket', '', '');
    await database.current().query(
      `INSERT INTO session_grants (session_id, person_id, tool_name, platform, workspace_id,
         conversation, granted_by, granted_at, expires_at)
       VALUES ('s-2', $1, 'chat_tool', 'slack', 'T1', '{}', $2, now() - interval '2 hours',
               now() - interval '1 hour')`,
      [bob.id, JSON.stringify(bob)],
    );

    expect(await auditEndedGrants(database.current())).toBe(3);
    expect(await auditEndedGrants(database.current())).toBe(0);
    const expired = await entries('grant_expired');
    expect(
      expired.map((e) => [e.detail.tool, e.detail.owner, e.detail.grant, e.detail.reason]).sort(),
    ).toEqual([
      ['chat_tool', bob.id, 'session', 'lapsed'],
      ['lapsed', alice.id, 'always', 'lapsed'],
      ['used_up', alice.id, 'always', 'used_up'],
    ]);
    expect(expired.every((e) => e.who === null)).toBe(true);

    const grants = new ToolGrantsRepository(async () => database.current());
    const revoked = await grants.revoke(
      { personId: alice.id },
      { id: 'ops-anna', platform: 'operator' },
    );
    // Only the grants still in force: an ended grant has nothing left to revoke.
    expect(revoked.map((g) => g.toolName).sort()).toEqual(['blanket', 'in_force']);
    const revocations = await entries('grant_revoked');
    expect(revocations.map((e) => [e.detail.tool, e.who])).toEqual([
      ['blanket', { id: 'ops-anna', platform: 'operator' }],
      ['in_force', { id: 'ops-anna', platform: 'operator' }],
    ]);
    expect(revocations[1]?.detail).toMatchObject({ usesLeft: 1, owner: alice.id });
    expect(await auditEndedGrants(database.current())).toBe(0);
  });
});
