import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from '@tollgate/protocol';
import { createTestSchema, TEST_DATABASE_URL } from '../support/database';
import { freePort } from '../support/free-port';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from '../support/nats';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * (process) The contract suite's external mode, as an engineer uses it: each platform's built
 * binding started by hand with the variables docs/contract.md gives (read from its command
 * blocks, so the document and the test cannot drift apart), then the suite run against it by
 * a second jest, as `npm run test:contract` would.
 */
const ROOT = join(__dirname, '..', '..');
const PLATFORMS: Platform[] = ['slack', 'discord', 'mattermost'];
/** The stand-in's port in the document's commands. */
const DOCUMENTED_FAKE_PORT = '4599';

/** The variables of the document's command block that starts `platform`'s binding. */
function documentedEnv(platform: Platform): Record<string, string> {
  const markdown = readFileSync(join(ROOT, 'docs', 'contract.md'), 'utf8');
  const block = [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((text) => text.includes(`node dist/apps/${platform}-binding/main.js`));
  if (block === undefined) throw new Error(`docs/contract.md has no command for ${platform}`);
  const env: Record<string, string> = {};
  for (const token of block.replace(/\\\n/g, ' ').split(/\s+/)) {
    const assignment = /^([A-Z][A-Z0-9_]*)=(\S+)$/.exec(token);
    if (assignment) env[assignment[1]] = assignment[2];
  }
  return env;
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('D9 — the contract suite against a binding started by hand', () => {
  it.each(PLATFORMS)(
    'D9 %s: the built binding, started with docs/contract.md’s variables, passes the contract suite in external mode',
    async (platform) => {
      const [port, fakePort] = [await freePort(), await freePort()];
      const prefix = uniqueToken(`d9${platform}`).slice(0, 24);
      const schema = createTestSchema(`d9${platform}`);
      const documented = documentedEnv(platform);
      // The document's values, moved to this run's own ports, prefix and schema.
      const env: Record<string, string> = Object.fromEntries(
        Object.entries(documented).map(([name, value]) => [
          name,
          value.replace(`:${DOCUMENTED_FAKE_PORT}`, `:${fakePort}`),
        ]),
      );
      Object.assign(env, {
        PORT: String(port),
        NATS_URL: TEST_NATS_URL,
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_SCHEMA: schema.schema,
        TOLLGATE_SUBJECT_PREFIX: prefix,
      });
      expect(Object.keys(documented).sort()).toEqual(Object.keys(env).sort());

      let printed = '';
      const binding = spawn(
        process.execPath,
        [join(ROOT, 'dist', 'apps', `${platform}-binding`, 'main.js')],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      binding.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      binding.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      try {
        await waitFor(
          `the ${platform} binding started by hand to be ready`,
          async () => {
            if (binding.exitCode !== null) throw new Error(`exited: ${printed}`);
            return (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200;
          },
          { timeoutMs: 20_000 },
        );

        let suite = '';
        const jest = spawn(
          process.execPath,
          [
            join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
            'test/contract/binding-contract.spec.ts',
          ],
          {
            cwd: ROOT,
            env: {
              PATH: process.env.PATH,
              TEST_NATS_URL,
              TEST_DATABASE_URL,
              TOLLGATE_CONTRACT_BINDING_URL: `http://127.0.0.1:${port}`,
              TOLLGATE_CONTRACT_PLATFORM: platform,
              TOLLGATE_CONTRACT_PREFIX: prefix,
              TOLLGATE_CONTRACT_DATABASE_SCHEMA: schema.schema,
              TOLLGATE_CONTRACT_FAKE_PORT: String(fakePort),
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        jest.stdout?.on('data', (chunk: Buffer) => (suite += chunk.toString()));
        jest.stderr?.on('data', (chunk: Buffer) => (suite += chunk.toString()));
        const code = await exitOf(jest);
        const summary = /^Tests:.*$/m.exec(suite)?.[0] ?? suite;
        process.stdout.write(`D9 ${platform}: ${summary}\n`);
        // What failed, as the suite told it, so the report says more than an exit code.
        if (code !== 0)
          process.stdout.write(`${suite.slice(suite.indexOf('●'), suite.indexOf('●') + 3000)}\n`);
        expect(code).toBe(0);
        expect(summary).toMatch(/^Tests: +1 skipped, \d+ passed, \d+ total$/);
        // B6 alone is skipped: it restarts the binding, which the suite cannot do to this one.
        expect(suite).toMatch(/skipped B6 /);
      } finally {
        binding.kill('SIGTERM');
        await exitOf(binding);
        const nc = await connectTestNats();
        await deleteStreams(nc, prefix);
        await nc.close();
        await schema.drop();
      }
    },
    180_000,
  );
});
