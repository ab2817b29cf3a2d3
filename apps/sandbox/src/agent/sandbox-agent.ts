import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Platform } from '@tollgate/protocol';
import { PEOPLE } from '../platforms/sandbox-people';
import type { AgentRoute } from '../platforms/sandbox-platform.port';

const run = promisify(execFile);

/** What the page shows of one hook round trip: Claude Code's answer, as Claude Code reads it. */
export interface AgentAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * The outside agent of the sandbox page: one approval-api client per stand-in panel, made with
 * the operator's CLI at start (a fresh key each run, kept only in memory), and a Claude Code
 * `PermissionRequest` hook body, as Claude Code's `http` hook posts it, sent on request.
 */
export class SandboxAgent {
  private readonly keys = new Map<Platform, string>();

  constructor(
    private readonly root: string,
    private readonly env: Record<string, string>,
  ) {}

  /** `clients create … --json` for the panel's conversation, with Alice and Bob as approvers. */
  async createClient(platform: Platform, route: AgentRoute): Promise<void> {
    const cli = join(this.root, 'dist', 'apps', 'tollgate-cli', 'main.js');
    const approvers = Object.values(PEOPLE).flatMap((p) => ['--approver', p.ids[platform]]);
    const { stdout } = await run(
      process.execPath,
      [
        cli,
        'clients',
        'create',
        `sandbox agent (${platform})`,
        '--platform',
        platform,
        `--workspace=${route.workspaceId}`,
        '--channel',
        route.channelId,
        ...approvers,
        '--json',
      ],
      { cwd: this.root, env: { PATH: process.env.PATH ?? '', ...this.env } },
    );
    this.keys.set(platform, (JSON.parse(stdout) as { key: string }).key);
  }

  has(platform: Platform): boolean {
    return this.keys.has(platform);
  }

  /** Held by approval-api until someone answers in the panel (or its hold ends: deny). */
  async ask(approvalApiUrl: string, platform: Platform): Promise<AgentAnswer> {
    const key = this.keys.get(platform);
    if (key === undefined)
      return { status: 409, body: { error: 'no agent client for this panel' } };
    const response = await fetch(`${approvalApiUrl}/v1/hooks/claude-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(permissionRequest()),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Shown as text.
    }
    return { status: response.status, body };
  }
}

/** A `PermissionRequest` hook input shaped as Claude Code's hooks reference shows it. */
function permissionRequest(): Record<string, unknown> {
  return {
    session_id: `sandbox-${process.pid}`,
    transcript_path: '/home/newcomer/.claude/projects/demo/sandbox.jsonl',
    cwd: '/home/newcomer/demo',
    permission_mode: 'default',
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: {
      command: 'npm publish --tag next',
      description: 'Publish the package to npm',
    },
  };
}
