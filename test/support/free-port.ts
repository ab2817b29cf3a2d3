import { createServer } from 'node:net';

/**
 * Ports this test process has handed out. The kernel may give the same free port to two calls
 * in a row when the first caller has not started listening on it yet: two replicas of one
 * system then shared a port, the second died with EADDRINUSE, and its readiness probe was
 * answered by the first (R6 under `npm run test:stress`). A port is never handed out twice.
 */
const handedOut = new Set<number>();

/** Asks the kernel for a free loopback port that this process has not handed out before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await kernelFreePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function kernelFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
