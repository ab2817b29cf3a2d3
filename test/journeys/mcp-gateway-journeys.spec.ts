import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Conversation, Platform } from '@tollgate/protocol';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { ApprovalApiSystem } from '../support/approval-api.fixture';
import {
  type ApiJourneySystem,
  startApiJourneySystem,
} from '../support/api-journey-system.fixture';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { freePort } from '../support/free-port';
import {
  filesystemServer,
  type GatewayProcess,
  httpAgent,
  startGateway,
  stdioAgent,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process) An MCP agent's call held for a person in chat, whole system: the SDK's Client as
 * the agent, the built gateway fronting the published filesystem server, the built approval-api,
 * session service and binding on one subject prefix, and a person clicking on the platform's
 * stand-in. Discord's agent talks stdio (the gateway started by the agent), the others HTTP.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

type CallResult = { isError?: boolean; content?: unknown };

describe.each(platforms)(
  'M2 — an MCP call held for a person, whole system through %s',
  (platform) => {
    let system: ApiJourneySystem | undefined;
    let approvals: ApprovalApiSystem;
    let driver: PlatformDriver;
    let session: SessionServiceFixture;
    let binding: BindingFixture;
    let conversation: Conversation;
    let dir: string;
    let config: string;
    let env: Record<string, string>;
    let port: number;
    let gateway: GatewayProcess | undefined;
    let agent: Client;
    const overStdio = platform === 'discord';

    const connect = async () => {
      if (overStdio) {
        agent = (await stdioAgent(config, env)).client;
        return;
      }
      gateway = await startGateway(config, env, port);
      await gateway.waitUntilReady();
      agent = await httpAgent(gateway);
    };

    beforeAll(async () => {
      system = await startApiJourneySystem(platform, 'mg');
      ({ driver, session, binding, approvals } = system);
      conversation = driver.freshConversation();
      const { key } = await approvals.createClient({
        name: 'mcp gateway',
        platform,
        workspaceId: conversation.workspaceId,
        conversation: { channelId: conversation.channelId, threadId: conversation.threadId },
        approvers: [alice.id],
      });
      dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
      config = writeGatewayConfig(
        {},
        [
          'approvalApi: { url: "${APPROVAL_URL}", key: ${TOLLGATE_API_KEY} }',
          `agentName: desktop-${platform}`,
          'holdSeconds: 40',
          'progressSeconds: 1',
          'servers:',
          `  fs: { command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify(filesystemServer(dir).args)} }`,
          'policy: { default: ask, readOnly: allow }',
        ].join('\n'),
      );
      env = { APPROVAL_URL: approvals.replicas[0].url(''), TOLLGATE_API_KEY: key };
      port = await freePort();
      await connect();
    }, 90_000);

    afterAll(async () => {
      await agent?.close().catch(() => undefined);
      await gateway?.stop();
      await system?.dispose();
    });

    /** The prompt for `path`, once the binding has journaled it (only then can it be answered). */
    const prompted = async (path: string): Promise<ChatMessageView> => {
      const posted = await waitFor(
        `the prompt for ${path}`,
        () =>
          driver
            .messagesIn(conversation)
            .find(
              (m) =>
                m.buttons.length > 0 && m.text.includes(path) && !m.text.includes('still valid'),
            ),
        { timeoutMs: 20_000 },
      );
      // This prompt's own row: every test asks in the one conversation, so any tracked row
      // would be an earlier prompt's, and a Mattermost click before this one's is refused 401.
      await binding.postJournaled(posted.messageId);
      return posted;
    };
    const click = async (message: ChatMessageView, label: string) => {
      const button = message.buttons.find((b) => b.label === label);
      expect(button).toBeDefined();
      expect((await driver.click(binding.url, message, button!, alice)).status).toBe(200);
    };
    const write = (path: string, content: string, progress: Progress[] = []) =>
      agent.callTool({ name: 'fs__write_file', arguments: { path, content } }, undefined, {
        onprogress: (p) => progress.push(p),
        resetTimeoutOnProgress: true,
        timeout: 60_000,
      }) as Promise<CallResult>;

    it(`M2 ask: the prompt appears in ${platform}, naming the tool and its arguments; approved, the file is written and the result returned`, async () => {
      const path = join(dir, 'approved.txt');
      const progress: Progress[] = [];
      const call = write(path, 'approved in chat', progress);
      const posted = await prompted(path);
      expect(posted.text).toContain('fs__write_file');
      expect(posted.text).toContain('approved in chat');
      expect(existsSync(path)).toBe(false);
      await waitFor('a progress notification', () => progress.length > 0);
      await click(posted, 'Approve once');
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/^Successfully wrote to /);
      expect(readFileSync(path, 'utf8')).toBe('approved in chat');
    });

    it(`M2 deny in ${platform}: isError "Denied by …" and no file`, async () => {
      const path = join(dir, 'denied.txt');
      const call = write(path, 'never');
      await click(await prompted(path), 'Deny');
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Denied by .+: /);
      expect(existsSync(path)).toBe(false);
    });

    if (platform === 'slack') {
      it('M3 the gateway is SIGKILLed while a call is held and the session service restarted meanwhile: the prompt says "still valid", the same call finds the approval and runs once approved', async () => {
        const path = join(dir, 'survives.txt');
        const sessionId = agent.transport?.sessionId;
        const held = write(path, 'survived').catch((error: unknown) => error);
        const posted = await prompted(path);
        await gateway!.stop('SIGKILL');
        await agent.close().catch(() => undefined);
        // Cut off with the gateway (an error from fetch or the SDK), never a result.
        expect(await held).toHaveProperty('message');
        await session.restart('SIGKILL');
        const refreshed = await waitFor('the refreshed prompt', () =>
          driver
            .messagesIn(conversation)
            .find((m) => m.messageId === posted.messageId && m.text.includes('still valid')),
        );
        gateway = await startGateway(config, env, port);
        await gateway.waitUntilReady();
        agent = await httpAgent(gateway, sessionId);
        const progress: Progress[] = [];
        const again = write(path, 'survived', progress);
        await waitFor('the same call to wait on the approval', () => progress.length > 0);
        await click(refreshed, 'Approve once');
        const result = await again;
        expect(result.isError).toBeFalsy();
        expect(readFileSync(path, 'utf8')).toBe('survived');
        const rows = await approvals.query<{ id: string }>(
          `SELECT id FROM approvals WHERE command->'arguments'->>'path' = $1`,
          [path],
        );
        expect(rows).toHaveLength(1);
      });
    }
  },
);
