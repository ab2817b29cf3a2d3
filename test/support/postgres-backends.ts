import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { withClient } from './database';

export interface Backend {
  readonly pid: number;
  readonly state: string | null;
  readonly inTransaction: boolean;
  /** The backend's current or last statement, to tell whose transaction it is. */
  readonly query: string;
}

/**
 * The PostgreSQL backends serving one process: its sockets (from /proc) matched to
 * pg_stat_activity by client port. Other engineers' services share the server and the
 * application name, so the name alone cannot tell them apart.
 */
export async function backendsOf(pid: number, serverPort = 5432): Promise<Backend[]> {
  const ports = clientPorts(pid, serverPort);
  if (ports.length === 0) return [];
  return withClient(async (client) => {
    const rows = await client.query<{
      pid: number;
      state: string | null;
      in_tx: boolean;
      query: string;
    }>(
      `SELECT pid, state, xact_start IS NOT NULL AS in_tx, query FROM pg_stat_activity
       WHERE client_port = ANY($1::int[]) AND client_addr IS NOT NULL`,
      [ports],
    );
    return rows.rows.map((r) => ({
      pid: r.pid,
      state: r.state,
      inTransaction: r.in_tx,
      query: r.query,
    }));
  });
}

/** Advisory locks of `classId` held by the given backends. */
export async function advisoryLocksHeld(pids: readonly number[], classId: number): Promise<number> {
  if (pids.length === 0) return 0;
  return withClient(async (client) => {
    const rows = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND pid = ANY($1::int[]) AND classid = $2`,
      [pids, classId],
    );
    return Number(rows.rows[0]?.n ?? 0);
  });
}

function clientPorts(pid: number, serverPort: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const inode = /^socket:\[(\d+)\]$/.exec(readLink(`/proc/${pid}/fd/${fd}`))?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    for (const line of readText(table).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, remote, inode] = [fields[1], fields[2], fields[9]];
      if (!local || !remote || !inode || !inodes.has(inode)) continue;
      if (parseInt(remote.split(':')[1] ?? '', 16) !== serverPort) continue;
      ports.push(parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports;
}

/** A descriptor may close between listing and reading it. */
function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
