// The PostgreSQL backends serving a process, and the CPU they spend: a bench on loopback
// charges a service for the database work it causes, not only for its own process. A backend
// is found by the client port of its connection (pg_stat_activity) among the local ports of
// the process's sockets; its CPU is read from /proc, as the process's is. Loopback only: the
// benches refuse a database elsewhere, whose backends this machine's /proc cannot see.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const figures = require('./bench-figures.js');

/** The local TCP ports of a process's sockets, from its fds and /proc/net/tcp{,6}. */
export function localPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9])) {
        ports.add(parseInt(cols[1].split(':').pop(), 16));
      }
    }
  }
  return ports;
}

/** The pids of the backends whose connections come from `pids`' sockets. */
export async function backendPidsOf(db, pids) {
  const ports = pids.flatMap((pid) => [...localPorts(pid)]);
  const { rows } = await db.query(
    'SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])',
    [ports],
  );
  return rows.map((row) => row.pid);
}

/** CPU ms so far of each backend serving `pids`, by backend pid (one that ended is skipped). */
export async function backendCpuMs(db, pids) {
  const spent = new Map();
  for (const pid of await backendPidsOf(db, pids)) {
    try {
      spent.set(pid, figures.cpuMsFromProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')));
    } catch {
      // the backend ended between the query and the read
    }
  }
  return spent;
}
