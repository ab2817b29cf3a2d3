// What one start of a built service costs, as the test fixtures start it: a fresh schema and
// subject prefix, the child spawned with the fixtures' environment, /health/ready polled every
// 25 ms. At the first 200 it reads the service's CPU (utime+stime from /proc/<pid>/stat) and
// that of the PostgreSQL backends serving it (found through its sockets' ports), then stops
// it. The suite is CPU-bound on a 2-core machine, so CPU-seconds per boot is the figure that
// matters more than wall time. Prints figures; asserts nothing.
// Usage: npm run bench:boot [-- --runs 5 --services session-service,slack-binding,approval-api]
//   [--node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { backendPidsOf } from './pg-backends.mjs';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const { Client } = require('pg');
const protocol = require(join(root, 'dist', 'libs', 'protocol', 'index.js'));
const { connect } = require('@nats-io/transport-node');
const { jetstreamManager } = require('@nats-io/jetstream');

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Number(arg('runs', 5));
const SERVICES = arg('services', 'session-service,slack-binding,approval-api').split(',');
const TICKS = 100; // USER_HZ on Linux
const POLL_MS = Number(arg('poll-ms', 25));
// e.g. `--node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"` to see where a boot's CPU goes.
const NODE_ARGS = arg('node-args', '').split(' ').filter(Boolean);

/** Only what the service must have to become ready; the platform is never called at boot. */
const PLATFORM_ENV = {
  'slack-binding': {
    SLACK_BOT_TOKEN: 'xoxb-boot',
    SLACK_SIGNING_SECRET: 'boot-signing-secret',
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
  },
};

function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function bootOnce(service, db) {
  const token = randomBytes(5).toString('hex');
  const schema = `t_boot_${token}`;
  const prefix = `boot${token}`;
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...NODE_ARGS, join(root, 'dist', 'apps', service, 'main.js')],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        LOG_LEVEL: 'warn',
        TOLLGATE_RATE_WINDOW_DIVISOR: '1000',
        NATS_URL,
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        TOLLGATE_RETRY_BASE_MS: '50',
        TOLLGATE_DRAIN_MS: '3000',
        ...PLATFORM_ENV[service],
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let printed = '';
  child.stdout.on('data', (c) => (printed += c));
  child.stderr.on('data', (c) => (printed += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let figures;
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${service} exited: ${printed}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health/ready`)
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${service} never ready: ${printed}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const wall = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(child.pid);
    const backends = await backendPidsOf(db, [child.pid]);
    const pg = backends.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    figures = { wall, cpu, pg, backends: backends.length };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    const nc = await connect({ servers: NATS_URL, name: 'boot-cpu' });
    const jsm = await jetstreamManager(nc);
    for (const name of Object.values(protocol.streamNames(prefix))) {
      await jsm.streams.delete(name).catch(() => undefined);
    }
    await nc.close();
  }
  return figures;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const db = new Client({ connectionString: DATABASE_URL, application_name: 'boot-cpu' });
await db.connect();
try {
  for (const service of SERVICES) {
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await bootOnce(service, db));
    const f = (key) => median(runs.map((r) => r[key])).toFixed(2);
    console.log(
      `${service.padEnd(16)} median of ${RUNS}: service CPU ${f('cpu')} s, ` +
        `its PostgreSQL backends ${f('pg')} s (${f('backends')} open), wall to ready ${f('wall')} s` +
        `  [cpu: ${runs.map((r) => r.cpu.toFixed(2)).join(' ')}]`,
    );
  }
} finally {
  await db.end();
}
