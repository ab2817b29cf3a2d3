import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../infrastructure/local-ports';
import { ServiceSupervisor } from './service-supervisor';

/** A service as small as a service gets: it binds PORT (or dies with EADDRINUSE) and is ready. */
const SERVICE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(process.env.GREETING + ' on ' + process.env.PORT);
});
server.on('error', (error) => { console.error(JSON.stringify({ msg: 'listen failed', err: error.message })); process.exit(1); });
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

describe('ServiceSupervisor', () => {
  let root: string;
  let squatter: Server;
  let taken: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tollgate-supervisor-'));
    await mkdir(join(root, 'dist', 'apps', 'approval-api'), { recursive: true });
    await mkdir(join(root, 'logs'));
    await writeFile(join(root, 'dist', 'apps', 'approval-api', 'main.js'), SERVICE);
    // The race, made certain: the port picked free is taken before the service binds it.
    taken = await freePort();
    squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => squatter.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  it('D5 a service whose port was taken before it bound moves to another free port, with the environment for it', async () => {
    const notes: string[] = [];
    const supervisor = new ServiceSupervisor(
      root,
      join(root, 'logs'),
      1_000,
      [
        {
          name: 'approval-api',
          port: taken,
          env: { GREETING: `hello ${taken}` },
          onPort: (port) => ({ GREETING: `hello ${port}` }),
        },
      ],
      (line) => notes.push(line),
    );
    try {
      supervisor.startAll();
      await supervisor.waitUntilReady(15_000);
      const url = supervisor.url('approval-api');
      const port = Number(new URL(url).port);
      expect(port).not.toBe(taken);
      expect(await (await fetch(url)).text()).toBe(`hello ${port} on ${port}`);
      expect(notes).toEqual([
        `approval-api: port ${taken} was taken before it bound it; moved to ${port}`,
      ]);
      expect(supervisor.statuses()[0]).toMatchObject({ state: 'ready', port, starts: 2 });
    } finally {
      await supervisor.stopAll();
    }
  });

  it('D5 a service on a fixed port that is taken exits at start, named, and is not moved', async () => {
    const supervisor = new ServiceSupervisor(root, join(root, 'logs'), 1_000, [
      { name: 'approval-api', port: taken, env: { GREETING: 'fixed' } },
    ]);
    try {
      supervisor.startAll();
      await expect(supervisor.waitUntilReady(15_000)).rejects.toThrow(
        'approval-api exited at start (exit 1)',
      );
      expect(supervisor.url('approval-api')).toBe(`http://127.0.0.1:${taken}`);
    } finally {
      await supervisor.stopAll();
    }
  });
});
