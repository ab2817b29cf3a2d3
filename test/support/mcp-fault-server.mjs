// A small MCP server that fails on request, for the gateway's fault tests (M3). Real
// upstream behaviour is tested against the published server-filesystem; this one only
// hangs, dies or wedges. Over stdio by default; `--http <port>` serves streamable HTTP and
// requires `Authorization: Bearer $FAULT_TOKEN`.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const object = { type: 'object', properties: { text: { type: 'string' } } };
const TOOLS = [
  {
    name: 'echo',
    description: 'Answers with its text',
    inputSchema: object,
    annotations: { readOnlyHint: true },
  },
  { name: 'hang', description: 'Never answers', inputSchema: object },
  { name: 'die', description: 'Kills its own process mid-call', inputSchema: object },
  { name: 'wedge', description: 'Blocks its event loop for a minute', inputSchema: object },
];

function newServer() {
  const server = new Server({ name: 'fault', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    switch (request.params.name) {
      case 'echo':
        return {
          content: [
            { type: 'text', text: `echo:${request.params.arguments?.text ?? ''}:${process.pid}` },
          ],
        };
      case 'hang':
        return new Promise(() => undefined);
      case 'die':
        process.kill(process.pid, 'SIGKILL');
        return new Promise(() => undefined);
      case 'wedge': {
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
          // busy: no ping is answered
        }
        return { content: [{ type: 'text', text: 'unwedged' }] };
      }
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

const httpAt = process.argv.indexOf('--http');
if (httpAt === -1) {
  await newServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${process.env.FAULT_TOKEN}`) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    let transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.argv[httpAt + 1]), '127.0.0.1', () => {
    process.stdout.write('listening\n');
  });
}
