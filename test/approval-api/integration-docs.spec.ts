import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest } from '@tollgate/protocol';
import { parseToolPolicy } from '../../apps/session-service/src/tools/tool-policy.loader';
import { builtInTools } from '../../apps/session-service/src/tools/tool-registry';
import { ApprovalApiSystem, approvedBy } from '../support/approval-api.fixture';
import { waitFor } from '../support/wait-for';

const DOCS = join(__dirname, '..', '..', 'docs', 'integrations');
const DOCUMENTED_URL = 'http://127.0.0.1:3004';

function read(name: string): string {
  return readFileSync(join(DOCS, name), 'utf8');
}

/** The fenced blocks of one language in a Markdown file. */
function blocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map(
    (match) => match[1],
  );
}

function sh(
  script: string,
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'bash',
      ['-c', script],
      { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr,
        }),
    );
    child.stdin?.end(stdin);
  });
}

/**
 * A8: the integration docs are run, not just read — their curl commands, the Codex hook
 * command, the Claude Code settings block and the webhook check work against a built
 * approval-api as written (only the host and port are the test's).
 */
describe('A8 — the integration docs work as written (process)', () => {
  let system: ApprovalApiSystem;
  let key: string;
  let base: string;

  beforeAll(async () => {
    system = await ApprovalApiSystem.start('a8docs');
    key = (await system.createClient({ name: 'docs' })).key;
    base = system.replicas[0].url('');
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  async function newestRequest(before: Set<string>): Promise<ApprovalRequest> {
    return waitFor('the documented request to create its approval', async () => {
      const rows = await system.query<{ id: string }>('SELECT id FROM approvals');
      const fresh = rows.find((row) => !before.has(row.id));
      return fresh === undefined ? undefined : system.publishedRequest(fresh.id);
    });
  }

  async function ids(): Promise<Set<string>> {
    return new Set(
      (await system.query<{ id: string }>('SELECT id FROM approvals')).map((r) => r.id),
    );
  }

  it('A8 http-api.md: the create curl answers 202, and every route it names is served', async () => {
    const doc = read('http-api.md');
    const create = blocks(doc, 'bash').find((b) => b.includes('/v1/approvals" \\'));
    expect(create).toBeDefined();
    const run = await sh(`${create}`, { TOLLGATE_URL: base, TOLLGATE_API_KEY: key });
    expect(run.code).toBe(0);
    const approval = JSON.parse(run.stdout) as { id: string; status: string };
    expect(approval.status).toBe('pending');
    for (const route of doc.matchAll(/(GET|POST) \/v1\/[a-z/<>_-]+/g)) {
      const [method, path] = route[0].split(' ') as [string, string];
      const concrete = path.replace('<id>', approval.id);
      const answer = await system.call(method, concrete, {
        key,
        ...(method === 'POST' ? { body: {} } : {}),
      });
      expect({
        route: route[0],
        served: answer.status !== 404 || answer.body.error === 'not_found',
      }).toEqual({
        route: route[0],
        served: true,
      });
    }
  });

  it("A8 http-api.md: the webhook signature check accepts Tollgate's signature and refuses a forged one", async () => {
    const check = blocks(read('http-api.md'), 'bash').find((b) => b.includes('Tollgate-Signature'));
    expect(check).toBeDefined();
    const secret = 'ab'.repeat(32);
    const body = JSON.stringify({ id: 'apr_x', status: 'approved' });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    const good = await sh(check!, { SIG: `t=${t},v1=${v1}`, BODY: body, WEBHOOK_SECRET: secret });
    expect(good.stdout.trim()).toBe('valid');
    const forged = await sh(check!, {
      SIG: `t=${t},v1=${'0'.repeat(64)}`,
      BODY: body,
      WEBHOOK_SECRET: secret,
    });
    expect(forged.stdout.trim()).toBe('');
  });

  it('A8 codex.md: the config.toml command, run as Codex runs it, posts stdin and prints the allow', async () => {
    const toml = blocks(read('codex.md'), 'toml')[0] ?? '';
    expect(toml).toContain('[[hooks.PermissionRequest]]');
    const command = /^command = '(.*)'$/m.exec(toml)?.[1];
    expect(command).toContain(`${DOCUMENTED_URL}/v1/hooks/codex`);
    const before = await ids();
    const hookInput = JSON.stringify({
      session_id: 's-docs',
      transcript_path: null,
      cwd: '/repo',
      hook_event_name: 'PermissionRequest',
      model: 'gpt-5-codex',
      permission_mode: 'default',
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: 'make release' },
    });
    const running = sh(
      command!.replace(DOCUMENTED_URL, base),
      { TOLLGATE_API_KEY: key },
      hookInput,
    );
    const request = await newestRequest(before);
    await system.decide(request, 'approved', approvedBy('U_ALICE'));
    const run = await running;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });

  it('A8 claude-code.md: the settings.json block is an http PermissionRequest hook whose header carries the key through allowedEnvVars', async () => {
    const settings = JSON.parse(blocks(read('claude-code.md'), 'json')[0] ?? '{}') as {
      hooks: { PermissionRequest: { hooks: Record<string, unknown>[] }[] };
    };
    const hook = settings.hooks.PermissionRequest[0]?.hooks[0] ?? {};
    expect(hook).toMatchObject({
      type: 'http',
      url: `${DOCUMENTED_URL}/v1/hooks/claude-code`,
      headers: { Authorization: 'Bearer $TOLLGATE_API_KEY' },
      allowedEnvVars: ['TOLLGATE_API_KEY'],
    });
    // As Claude Code sends it: the variable expanded into the header, the hook input as body.
    const before = await ids();
    const answer = system.call('POST', String(hook.url).replace(DOCUMENTED_URL, ''), {
      headers: {
        authorization: (hook.headers as { Authorization: string }).Authorization.replace(
          '$TOLLGATE_API_KEY',
          key,
        ),
      },
      body: {
        session_id: 'abc123',
        transcript_path: '/tmp/t.jsonl',
        cwd: '/tmp',
        permission_mode: 'default',
        hook_event_name: 'PermissionRequest',
        tool_name: 'Bash',
        tool_input: { command: 'npm publish' },
      },
    });
    const request = await newestRequest(before);
    await system.decide(request, 'approved', approvedBy('U_ALICE'));
    expect((await answer).body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });
});

describe('A8 — the integration docs’ policy snippets load as written (unit)', () => {
  it('A8 claude-code.md: the TOOL_POLICY_FILE block loads with the session service’s loader and makes Write’s file_path editable for an API approval', () => {
    const yaml = blocks(read('claude-code.md'), 'yaml');
    expect(yaml).toHaveLength(1);
    // The session service's own loader and registry, as it reads TOOL_POLICY_FILE at start.
    const policy = parseToolPolicy(yaml[0], 'claude-code.md', builtInTools());
    expect(policy.apiEntryFor('Write')?.editable).toEqual([
      { name: 'file_path', constraint: { kind: 'prefix', directory: '/srv/notes' } },
    ]);
  });
});
