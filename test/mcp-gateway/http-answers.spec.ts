import {
  faultServer,
  type GatewayProcess,
  startGateway,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { messagesOf, RawMcpSession } from '../support/mcp-raw-session';

/** How long the fault server's `hang` keeps a call open before the gateway answers it. */
const CALL_TIMEOUT_S = 2;

/**
 * M1: the gateway serves `/mcp` from node:http through its own transport. A call answered at
 * once is one JSON body (no stream to build or parse); a call that needs a stream gets one:
 * with a progress token, or still open after a moment (a held call), so its agent has the
 * status line while it waits. Both are answers the spec lets a client accepting both expect.
 */
describe('MCP gateway: JSON or SSE answers over streamable HTTP (M1)', () => {
  let gateway: GatewayProcess;
  let session: RawMcpSession;

  beforeAll(async () => {
    gateway = await startGateway(
      writeGatewayConfig({
        servers: { fault: faultServer() },
        callTimeoutSeconds: CALL_TIMEOUT_S,
        policy: { default: 'allow' },
      }),
    );
    await gateway.waitUntilReady();
    session = await RawMcpSession.open(gateway.url('/mcp'));
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('M1 answers a call the upstream answers at once as one JSON body under the session id', async () => {
    const answer = await session.callTool(1, 'fault__echo', { text: 'plain' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('mcp-session-id')).toBe(session.id);
    // Its length up front, not chunked: one body for the agent's parser, no framing to undo.
    const text = await answer.text();
    expect(answer.headers.get('transfer-encoding')).toBeNull();
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: expect.stringContaining('plain') }] },
    });
  });

  it('M1 answers a batch as a JSON array in request order, its notifications taken along', async () => {
    const answer = await session.post([
      {
        jsonrpc: '2.0',
        id: 'b',
        method: 'tools/call',
        params: { name: 'fault__echo', arguments: { text: 'second' } },
      },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
    ]);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const body = (await answer.json()) as { id: unknown }[];
    expect(body.map((message) => message.id)).toEqual(['b', 'a']);
  });

  it('M1 answers a call with a progress token on an SSE stream', async () => {
    const answer = await session.post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'fault__echo', arguments: { text: 'streamed' }, _meta: { progressToken: 2 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(answer.headers.get('mcp-session-id')).toBe(session.id);
    const messages = await messagesOf(answer);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: expect.any(Array) } });
  });

  it('M1 turns a call still open into an SSE stream, its answer the last event', async () => {
    // The status line arrives while the upstream still hangs: the call is answered only later.
    const answer = await session.callTool(3, 'fault__hang', {});
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const [result] = await messagesOf(answer);
    expect(result).toMatchObject({ id: 3, result: { isError: true } });
    expect(JSON.stringify(result)).toContain(`no answer within ${CALL_TIMEOUT_S} s`);
  });

  it('M1 takes a notification or a response with 202 and no body', async () => {
    const accepted = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('content-length')).toBe('0');
    expect(await accepted.text()).toBe('');
  });
});
