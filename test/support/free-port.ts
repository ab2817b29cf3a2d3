import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports this test process has handed out. The kernel may give the same free port to two calls
 * in a row when the first caller has not started listening on it yet: two replicas of one
 * system then shared a port, the second died with EADDRINUSE, and its readiness probe was
 * answered by the first (R6 under `npm run test:stress`). A port is never handed out twice.
 */
const handedOut = new Set<number>();

/**
 * Ports come from below the kernel's ephemeral range, not from `listen(0)`. A port the kernel
 * picks for `listen(0)` is an ephemeral one, and so is the local port of every outgoing
 * connection: a binding stopped for a cold start (B6), or a service not yet listening, lost its
 * port to some test's connection to PostgreSQL or NATS in between and died with EADDRINUSE
 * (`npm run test:stress`, run 13 of 20: the Mattermost contract suite). Below that range no
 * connection ever takes one. Each jest worker takes its own slice, so two workers never meet.
 */
const SLICE = 600;
const LOWEST = 20_000;

export async function freePort(): Promise<number> {
  const below = ephemeralStart();
  const worker = Number(process.env.JEST_WORKER_ID ?? 1);
  const start = LOWEST + (((worker - 1) * SLICE) % Math.max(SLICE, below - LOWEST - SLICE));
  const end = Math.min(start + SLICE, below);
  if (end - start < 50) return kernelPort();
  // A random first try, so two test processes (a run beside a stress run) rarely start alike.
  const offset = Math.floor(Math.random() * (end - start));
  for (let i = 0; i < end - start; i += 1) {
    const port = start + ((offset + i) % (end - start));
    if (handedOut.has(port)) continue;
    if (await listens(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return kernelPort();
}

/** The first port of the kernel's ephemeral range (Linux), or a conservative guess elsewhere. */
function ephemeralStart(): number {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a server could listen on the port on every address now (then closed again). */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

/** The old way, kept for a machine whose ephemeral range leaves no room below it. */
async function kernelPort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const chosen = typeof address === 'object' && address ? address.port : 0;
        server.close(() => resolve(chosen));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
