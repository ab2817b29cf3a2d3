import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamPool } from '@tollgate/mcp-upstream';
import { createLogger } from '@tollgate/service-runtime';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toChatRequest } from '../../../apps/session-service/src/model/openai-chat.client';
import { withMcpTools } from '../../../apps/session-service/src/tools/mcp-tool.registry';
import {
  parseToolPolicy,
  withToolPolicy,
} from '../../../apps/session-service/src/tools/tool-policy.loader';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { filesystemServer } from '../../support/mcp-gateway';

describe('the session service registry with MCP tools (M4)', () => {
  let dir: string;
  let pool: UpstreamPool;
  let upstream: McpTool[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-m4-'));
    pool = new UpstreamPool(
      new Map([['fs', { kind: 'stdio', env: {}, ...filesystemServer(dir) }]]),
      {
        logger: createLogger('test', 'silent'),
      },
    );
    await pool.start();
    const direct = new Client({ name: 'reference', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ ...filesystemServer(dir), stderr: 'ignore' }));
    upstream = (await direct.listTools()).tools;
    await direct.close();
  });

  afterAll(async () => {
    await pool?.stop();
  });

  it('M4 lists each MCP tool as fs__<tool> with the server description and schema, which the model is sent', () => {
    const registry = withMcpTools(builtInTools(), ['fs'], pool);
    const write = registry.get('fs__write_file');
    const original = upstream.find((t) => t.name === 'write_file');
    expect(write).toMatchObject({
      description: original?.description,
      parameters: original?.inputSchema,
    });
    expect(registry.list().map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'write_note', ...upstream.map((t) => `fs__${t.name}`)]),
    );
    const sent = toChatRequest('m', {
      messages: [{ role: 'user', content: 'hi' }],
      turnSeq: 1,
      tools: registry
        .list()
        .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    });
    expect(
      sent.tools?.find((t) => t.function.name === 'fs__write_file')?.function.parameters,
    ).toEqual(original?.inputSchema);
    expect(sent.tools?.find((t) => t.function.name === 'echo')?.function.parameters).toEqual({
      type: 'object',
    });
  });

  it('M4 runs the tool on the server and returns its text; the prompt shows the tool and its arguments', async () => {
    const registry = withMcpTools(builtInTools(), ['fs'], pool);
    const tool = registry.get('fs__write_file');
    const args = { path: join(dir, 'a.txt'), content: 'via registry' };
    expect(tool?.describe(args)).toBe(`fs__write_file ${JSON.stringify(args)}`);
    await expect(tool?.run(args, { noteCount: 0 })).resolves.toEqual({
      result: expect.stringContaining('Successfully wrote'),
    });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('via registry');
  });

  it('M4 the policy file may name the tools of a configured server before it runs; unnamed ones are refused', () => {
    const declared = withMcpTools(builtInTools(), ['fs'], undefined);
    const policy = parseToolPolicy(
      'tools:\n  fs__write_file: { mode: approval }\n',
      'policy.yaml',
      declared,
    );
    expect(policy.entryFor('fs__write_file')?.mode).toBe('approval');
    expect(policy.entryFor('fs__move_file')?.mode).toBe('deny');
    expect(policy.entryFor('other__tool')).toBeUndefined();
    const withoutFile = withToolPolicy({}, declared).toolPolicy;
    expect(withoutFile.entryFor('fs__move_file')?.mode).toBe('approval');
    expect(withoutFile.entryFor('echo')?.mode).toBe('auto');
    expect(() =>
      parseToolPolicy('tools:\n  other__x: { mode: auto }\n', 'policy.yaml', declared),
    ).toThrow(/other__x.*is not a tool this service has/);
  });
});
