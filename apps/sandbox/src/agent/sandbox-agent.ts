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

/** What `clients list --json` says of a client that matters here. */
interface ListedClient {
  readonly id: string;
  readonly name: string;
  readonly platform: string;
  readonly workspace: string;
  readonly conversations: readonly { readonly channel: string; readonly thread: string }[];
  readonly approvers: readonly string[];
  readonly revokedAt: string | null;
}

/**
 * The outside agent of the sandbox page: one approval-api client per stand-in panel, kept
 * across starts (a fresh key each run, kept only in memory), and a Claude Code
 * `PermissionRequest` hook body, as Claude Code's `http` hook posts it, sent on request.
 */
export class SandboxAgent {
  private readonly keys = new Map<Platform, string>();

  constructor(
    private readonly root: string,
    private readonly env: Record<string, string>,
  ) {}

  /**
   * Each panel's client with Alice and Bob as approvers: the one an earlier start made, under
   * a new key (`clients rotate`, so its old key stops working), or a new one (`clients
   * create`). Any other active client of a panel's name is revoked, so keys do not pile up
   * start after start. One `clients list` for all panels: each CLI run is a process start.
   * Says per panel what it did, or why it could not.
   */
  async provideClients(
    routes: ReadonlyMap<Platform, AgentRoute>,
  ): Promise<Map<Platform, 'kept' | 'created' | Error>> {
    const done = new Map<Platform, 'kept' | 'created' | Error>();
    let listed: ListedClient[];
    try {
      listed = (await this.cli(['clients', 'list', '--json']))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as ListedClient)
        .filter((c) => c.revokedAt === null);
    } catch (error) {
      for (const platform of routes.keys()) done.set(platform, error as Error);
      return done;
    }
    for (const [platform, route] of routes) {
      done.set(
        platform,
        await this.provideClient(
          platform,
          route,
          listed.filter((c) => c.name === clientName(platform)),
        ).catch((error: unknown) => error as Error),
      );
    }
    return done;
  }

  private async provideClient(
    platform: Platform,
    route: AgentRoute,
    active: readonly ListedClient[],
  ): Promise<'kept' | 'created'> {
    const approvers = Object.values(PEOPLE).map((p) => p.ids[platform]);
    const kept = active.find(
      (c) =>
        c.platform === platform &&
        c.workspace === route.workspaceId &&
        c.conversations.some((r) => r.channel === route.channelId && r.thread === '') &&
        approvers.every((a) => c.approvers.includes(a)),
    );
    for (const stale of active) {
      if (stale !== kept) await this.cli(['clients', 'revoke', stale.id]);
    }
    const stdout =
      kept === undefined
        ? await this.cli([
            'clients',
            'create',
            clientName(platform),
            '--platform',
            platform,
            `--workspace=${route.workspaceId}`,
            '--channel',
            route.channelId,
            ...approvers.flatMap((a) => ['--approver', a]),
            '--json',
          ])
        : await this.cli(['clients', 'rotate', kept.id, '--json']);
    this.keys.set(platform, (JSON.parse(stdout) as { key: string }).key);
    return kept === undefined ? 'created' : 'kept';
  }

  private async cli(args: readonly string[]): Promise<string> {
    const cli = join(this.root, 'dist', 'apps', 'tollgate-cli', 'main.js');
    const { stdout } = await run(process.execPath, [cli, ...args], {
      cwd: this.root,
      env: { PATH: process.env.PATH ?? '', ...this.env },
    });
    return stdout;
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

export function clientName(platform: Platform): string {
  return `sandbox agent (${platform})`;
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
