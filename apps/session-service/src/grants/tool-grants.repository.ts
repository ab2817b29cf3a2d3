import type { Conversation } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';
import type { ToolGrants } from '../session/domain/tool-grants.port';
import { workspaceKey } from './workspace-key';

/** Reads "Always allow" grants from `tool_grants` (written by `projectAlwaysGrants`). */
export class ToolGrantsRepository implements ToolGrants {
  /** `dataSource` resolves once the database is connected and migrated. */
  constructor(private readonly dataSource: () => Promise<DataSource>) {}

  async isAlwaysAllowed(conversation: Conversation, toolName: string): Promise<boolean> {
    const rows: unknown[] = await (
      await this.dataSource()
    ).query(`SELECT 1 FROM tool_grants WHERE workspace_key = $1 AND tool_name = $2`, [
      workspaceKey(conversation),
      toolName,
    ]);
    return rows.length > 0;
  }
}
