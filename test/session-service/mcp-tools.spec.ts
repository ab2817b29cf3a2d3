import { deriveSessionId } from '@tollgate/protocol';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freshConversation, response, userMessage } from '../support/commands';
import { filesystemServer } from '../support/mcp-gateway';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

/**
 * The session service's own agent with MCP tools (M4): TOLLGATE_MCP_SERVERS_FILE starts the
 * published filesystem server, its tools join the registry as fs__<tool>, gated by the policy
 * file like the built-in ones.
 */
describe('session service: MCP tools in the registry (M4)', () => {
  let dir: string;
  let service: SessionServiceFixture;
  let temp: string;

  const serversFile = (servers: Record<string, unknown>) => {
    const file = join(temp, `servers-${Object.keys(servers).join('-')}-${Date.now()}.yaml`);
    writeFileSync(file, stringify({ servers }));
    return file;
  };

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'tollgate-m4-'));
    dir = join(temp, 'workspace');
    mkdirSync(dir);
    writeFileSync(join(dir, 'readme.txt'), 'the workspace readme');
    const policy = join(temp, 'policy.yaml');
    writeFileSync(
      policy,
      stringify({
        tools: {
          echo: { mode: 'auto' },
          fs__write_file: { mode: 'approval', options: ['approve_once', 'deny'] },
          fs__read_text_file: { mode: 'auto' },
        },
      }),
    );
    service = await SessionServiceFixture.create('mcptools', {
      TOOL_POLICY_FILE: policy,
      TOLLGATE_MCP_SERVERS_FILE: serversFile({ fs: filesystemServer(dir) }),
    });
  });

  afterAll(async () => {
    await service?.dispose();
  });

  it('M4 the scripted model writes a file through fs__write_file behind a prompt; approved, the file appears', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const path = join(dir, 'approved.txt');
    await service.send(
      userMessage(conversation, `!fs__write_file ${JSON.stringify({ path, content: 'hello' })}`),
    );
    const [request] = await service.outputs.waitForOutputs('the prompt', is.request(), {
      sessionId,
    });
    expect(request.toolName).toBe('fs__write_file');
    expect(request.displayText).toContain(path);
    expect(request.options.map((o) => o.key)).toEqual(['approve_once', 'deny']);
    expect(existsSync(path)).toBe(false);
    await service.send(response(conversation, request.callId, 'approve_once'));
    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('fs__write_file:'), {
      sessionId,
    });
    expect(reply.text).toMatch(/^fs__write_file: Successfully wrote to /);
    expect(readFileSync(path, 'utf8')).toBe('hello');
  });

  it('M4 denied, the file is not written', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const path = join(dir, 'denied.txt');
    await service.send(
      userMessage(conversation, `!fs__write_file ${JSON.stringify({ path, content: 'no' })}`),
    );
    const [request] = await service.outputs.waitForOutputs('the prompt', is.request(), {
      sessionId,
    });
    await service.send(response(conversation, request.callId, 'deny'));
    await service.outputs.waitForOutputs('the reply', is.text('fs__write_file: denied'), {
      sessionId,
    });
    expect(existsSync(path)).toBe(false);
  });

  it('M4 fs__read_text_file with mode auto runs unasked and its result goes back into the turn', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(
        conversation,
        `!fs__read_text_file ${JSON.stringify({ path: join(dir, 'readme.txt') })}`,
      ),
    );
    const [reply] = await service.outputs.waitForOutputs(
      'the reply',
      is.text('fs__read_text_file:'),
      {
        sessionId,
      },
    );
    expect(reply.text).toBe('fs__read_text_file: the workspace readme');
    expect(
      service.outputs.seen.filter(
        (s) => s.output.sessionId === sessionId && s.output.type === 'ToolInteractionRequest',
      ),
    ).toEqual([]);
  });

  it('M4 a tool the policy file does not name is refused; an error result reaches the model as an error', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(
        conversation,
        [
          `!fs__create_directory ${JSON.stringify({ path: join(dir, 'made') })}`,
          `!fs__read_text_file ${JSON.stringify({ path: '/etc/passwd' })}`,
        ].join('\n'),
      ),
    );
    const [reply] = await service.outputs.waitForOutputs(
      'the reply',
      is.text('fs__create_directory:'),
      {
        sessionId,
      },
    );
    expect(reply.text).toContain('fs__create_directory: refused');
    expect(reply.text).toMatch(/fs__read_text_file: error: .*Access denied/);
    expect(existsSync(join(dir, 'made'))).toBe(false);
  });

  it('M4 a prompt whose MCP server is gone at redrive expires (S5) instead of hanging', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const path = join(dir, 'gone.txt');
    await service.send(
      userMessage(conversation, `!fs__write_file ${JSON.stringify({ path, content: 'never' })}`),
    );
    const [request] = await service.outputs.waitForOutputs('the prompt', is.request(), {
      sessionId,
    });
    await service.stop();
    await service.start({
      TOLLGATE_MCP_SERVERS_FILE: serversFile({
        fs: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      }),
    });
    await service.send(response(conversation, request.callId, 'approve_once'));
    const [expired] = await service.outputs.waitForOutputs(
      'the expiry',
      is.update('Expired', request.callId),
      {
        sessionId,
      },
    );
    expect(expired.status).toBe('Expired');
    expect(existsSync(path)).toBe(false);
  });
});
