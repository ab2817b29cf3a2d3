// The lightest honest MCP clients, for the gateway bench's floor (bench/mcp-gateway.bench.mjs).
// The SDK's Client validates every message against its zod schemas and its HTTP transport
// builds a web Request/Response and a fetch per call; on a machine whose cores the agent, the
// gateway and the upstream share, that CPU shows up as the gateway's added latency. These do
// the same protocol with nothing on top: a real initialize handshake, then JSON-RPC requests
// matched to their answers by id — newline-delimited over stdio, or POSTs to /mcp on a
// keep-alive node:http Agent carrying the session id (JSON answers, or SSE when the server
// chooses to stream).
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';

const PROTOCOL_VERSION = '2025-06-18';
const INITIALIZE = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'bench-light', version: '1.0.0' },
};

function failure(method, message) {
  return new Error(`${method} failed: ${JSON.stringify(message.error ?? message)}`);
}

/**
 * Reads newline-delimited JSON-RPC from `stdout` and hands each answer to the waiter `pending`
 * holds under its id (removed as it is called); requests and notifications from the server are
 * not answers and are skipped. Shared with bench/floor-mcp-proxy.mjs.
 */
export function onAnswers(stdout, pending) {
  let buffered = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (waiter === undefined || message.method !== undefined) continue;
      pending.delete(message.id);
      waiter(message);
    }
  });
}

/** An MCP server spawned over stdio, spoken to line by line. */
export async function lightStdioClient(
  command,
  args,
  { env = process.env, stderr = 'inherit' } = {},
) {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', stderr] });
  const pending = new Map();
  let nextId = 1;
  onAnswers(child.stdout, pending);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const rpc = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (message) =>
        message.error === undefined ? resolve(message.result) : reject(failure(method, message)),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await rpc('initialize', INITIALIZE);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    pid: child.pid,
    callTool: (params) => rpc('tools/call', params),
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The messages in an SSE body: each event's `data:` lines, joined. */
function sseMessages(body) {
  const messages = [];
  for (const event of body.split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data !== '') messages.push(JSON.parse(data));
  }
  return messages;
}

/** A streamable HTTP MCP endpoint, spoken to with one keep-alive connection per caller. */
export async function lightHttpClient(url, { headers: extra = {}, maxSockets = 16 } = {}) {
  const { hostname, port, pathname } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets });
  let sessionId;
  let nextId = 1;
  const post = (message) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(message);
      const headers = {
        ...extra,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      if (sessionId !== undefined) {
        headers['mcp-session-id'] = sessionId;
        headers['mcp-protocol-version'] = PROTOCOL_VERSION;
      }
      const req = request({ agent, hostname, port, path: pathname, method: 'POST', headers });
      req.once('error', reject);
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.once('end', () => resolve({ res, text }));
        res.once('error', reject);
      });
      req.end(body);
    });
  const rpc = async (method, params) => {
    const id = nextId++;
    const { res, text } = await post({ jsonrpc: '2.0', id, method, params });
    if (res.statusCode !== 200) throw new Error(`${method}: HTTP ${res.statusCode} ${text}`);
    const messages = String(res.headers['content-type']).startsWith('text/event-stream')
      ? sseMessages(text)
      : [JSON.parse(text)];
    const answer = messages.find((m) => m.id === id && m.method === undefined);
    if (answer === undefined) throw new Error(`${method}: no answer in ${text}`);
    if (answer.error !== undefined) throw failure(method, answer);
    return { answer: answer.result, res };
  };
  const { res } = await rpc('initialize', INITIALIZE);
  sessionId = res.headers['mcp-session-id'];
  if (sessionId === undefined) throw new Error('initialize answered without an Mcp-Session-Id');
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.res.statusCode !== 202) {
    throw new Error(`notifications/initialized: HTTP ${initialized.res.statusCode}`);
  }
  return {
    callTool: async (params) => (await rpc('tools/call', params)).answer,
    close: async () => {
      await new Promise((resolve) => {
        const req = request({
          agent,
          hostname,
          port,
          path: pathname,
          method: 'DELETE',
          headers: { ...extra, 'mcp-session-id': sessionId },
        });
        req.once('error', resolve);
        req.once('response', (r) => r.resume().once('end', resolve));
        req.end();
      });
      agent.destroy();
    },
  };
}
