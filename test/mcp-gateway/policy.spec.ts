import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  filesystemServer,
  type GatewayProcess,
  httpAgent,
  startGateway,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';

describe('MCP gateway: the policy (M2)', () => {
  let dir: string;
  let gateway: GatewayProcess;
  let agent: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    writeFileSync(join(dir, 'keep.txt'), 'stays put');
    const config = writeGatewayConfig({
      servers: { fs: filesystemServer(dir) },
      policy: {
        default: 'deny',
        readOnly: 'allow',
        tools: {
          fs__write_file: 'allow',
          fs__move_file: 'deny',
          fs__list_allowed_directories: 'deny',
        },
      },
    });
    gateway = await startGateway(config);
    await gateway.waitUntilReady();
    agent = await httpAgent(gateway);
  });

  afterAll(async () => {
    await agent?.close();
    await gateway?.stop();
  });

  it('M2 lists read-only tools and allowed ones; a denied tool, by name or by default, is not listed', async () => {
    const tools = (await agent.listTools()).tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain('fs__read_text_file');
    expect(names).toContain('fs__write_file');
    expect(names).not.toContain('fs__move_file');
    expect(names).not.toContain('fs__list_allowed_directories');
    expect(names).not.toContain('fs__create_directory');
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint === true || tool.name === 'fs__write_file').toBe(true);
    }
  });

  it('M2 refuses a call to a denied tool without running it', async () => {
    const result = await agent.callTool({
      name: 'fs__move_file',
      arguments: { source: join(dir, 'keep.txt'), destination: join(dir, 'moved.txt') },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Tool fs__move_file is denied by the gateway's policy; it did not run.",
    );
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true);
    expect(existsSync(join(dir, 'moved.txt'))).toBe(false);
  });

  it('M2 runs a read-only tool unasked', async () => {
    const result = await agent.callTool({
      name: 'fs__read_text_file',
      arguments: { path: join(dir, 'keep.txt') },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('stays put');
  });
});
