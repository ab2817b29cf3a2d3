import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ListedTool, UpstreamPool } from '@tollgate/mcp-upstream';
import type { Tool } from './tool';

/**
 * A tool of an MCP server (TOLLGATE_MCP_SERVERS_FILE) as the session's agent sees it: listed
 * `<server>__<tool>`, described and typed by the server, run by the kept-alive upstream.
 */
export function mcpTool(listed: ListedTool, pool: UpstreamPool, timeoutMs: number): Tool {
  return {
    name: listed.name,
    description: listed.tool.description ?? listed.tool.title ?? listed.name,
    parameters: listed.tool.inputSchema,
    // The prompt names the tool and every argument as the call carries it.
    describe: (args) => `${listed.name} ${JSON.stringify(args)}`,
    async run(args) {
      const result = await pool.call(listed.name, args, { timeoutMs });
      const text = textOf(result);
      // An error result is the tool's answer, not ours: the model reads it as `error: …`.
      if (result.isError === true) throw new Error(text);
      return { result: text };
    },
  };
}

/** The model reads text: text blocks verbatim, structured content as JSON, others by kind. */
function textOf(result: CallToolResult): string {
  const parts = result.content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource':
        return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
      case 'resource_link':
        return `[resource ${block.uri}]`;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.join('\n');
}
