// The gateway bench's floor (bench/mcp-gateway.bench.mjs): the lightest process that does the
// gateway's work for an allowed call — take a streamable HTTP POST on a keep-alive connection,
// check its session, strip the `<server>__` prefix, forward the request as one line to an
// upstream MCP server over stdio (a turn's lines in one write, as the gateway does), match the
// answer by id and send it back as one JSON body.
// No policy, no SDK, no schema checks, no logging, no metrics, no approval client: what is left
// is node:http and a pipe, so the gateway's figures can be read against what any Node HTTP
// proxy of an stdio server costs on the same machine (as bench:binding's floors do for the
// bindings). Not a server to use: it trusts its input and answers nothing else of MCP.
// Usage: node bench/floor-mcp-proxy.mjs <port> <prefix> <upstream command> [args...]
// It listens on 127.0.0.1:<port> (/mcp, and /health/ready once the upstream is initialized) and
// spawns the upstream as its own child, so the bench finds it among the proxy's children.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { onAnswers } from './light-mcp-clients.mjs';

const [portArgument, prefix, command, ...args] = process.argv.slice(2);
const upstream = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
upstream.once('exit', () => process.exit(1));

const waiting = new Map();
let nextId = 1;
onAnswers(upstream.stdout, waiting);

let corked = false;
/**
 * One request to the upstream under the proxy's own id (agents' ids may collide). The requests
 * of one event-loop turn go down the pipe in one write, as the gateway's do
 * (libs/mcp-upstream/src/coalescing-stdio.transport.ts): a floor without it made its upstream
 * read, and spend CPU on, one line at a time.
 */
const upstreamCall = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    if (!corked) {
      corked = true;
      upstream.stdin.cork();
      setImmediate(() => {
        corked = false;
        upstream.stdin.uncork();
      });
    }
    upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });

const PROTOCOL_VERSION = '2025-06-18';
await upstreamCall('initialize', {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'floor-proxy', version: '1.0.0' },
});
upstream.stdin.write(
  `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
);

const sessions = new Set();
const json = (res, status, body, sessionId) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
  });
  res.end(text);
};

async function answer(req, res, body) {
  const sessionId = req.headers['mcp-session-id'];
  if (req.method === 'DELETE') {
    sessions.delete(sessionId);
    res.end();
    return;
  }
  const message = JSON.parse(body);
  if (message.method === 'initialize') {
    const id = randomUUID();
    sessions.add(id);
    const result = {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: { tools: {} },
      serverInfo: { name: 'floor-proxy', version: '1.0.0' },
    };
    json(res, 200, { jsonrpc: '2.0', id: message.id, result }, id);
    return;
  }
  if (!sessions.has(sessionId)) {
    json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no session' } });
    return;
  }
  if (message.id === undefined) {
    res.statusCode = 202;
    res.end();
    return;
  }
  const params =
    message.method === 'tools/call'
      ? { ...message.params, name: message.params.name.slice(prefix.length) }
      : message.params;
  const reply = await upstreamCall(message.method, params);
  json(res, 200, { ...reply, id: message.id }, sessionId);
}

createServer((req, res) => {
  if (req.method === 'GET') {
    res.statusCode = req.url === '/health/ready' ? 200 : 405;
    res.end();
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => void answer(req, res, body));
}).listen(Number(portArgument), '127.0.0.1');
