import {
  faultServer,
  gatewayMetric,
  type GatewayProcess,
  startGateway,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { messagesOf, RawMcpSession } from '../support/mcp-raw-session';

/** How long the fault server's `hang` keeps the first request open before the gateway answers. */
const CALL_TIMEOUT_S = 3;

/**
 * M9: a JSON-RPC request id is unique among a session's open requests. The SDK's transport keys
 * its answer streams by id, so a second request under an open id used to take the first one's
 * stream and leave it unanswered for good; the gateway now refuses the second at once.
 */
describe('MCP gateway: duplicate request ids (M9)', () => {
  let gateway: GatewayProcess;

  beforeAll(async () => {
    gateway = await startGateway(
      writeGatewayConfig({
        servers: { fault: faultServer() },
        callTimeoutSeconds: CALL_TIMEOUT_S,
        policy: { default: 'allow' },
      }),
    );
    await gateway.waitUntilReady();
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('M9 a second request under an id still open on the session is refused 409 duplicate_request_id at once, and the first is still answered', async () => {
    const session = await RawMcpSession.open(gateway.url('/mcp'));
    const first = await session.callTool(7, 'fault__hang', {});
    expect(first.status).toBe(200);
    const firstAnswer = messagesOf(first);

    const duplicate = await session.callTool(7, 'fault__echo', { text: 'twin' });
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message:
          "Request id 7 is already in progress on this session; a request id must be unique among a session's open requests.",
        data: { reason: 'duplicate_request_id', id: 7 },
      },
      id: null,
    });

    // The first request gets its own answer (the hang ends in the gateway's call timeout).
    const [answer] = await firstAnswer;
    expect(answer).toMatchObject({ id: 7, result: { isError: true } });
    expect(JSON.stringify(answer)).toContain(`no answer within ${CALL_TIMEOUT_S} s`);

    // Once answered, the id is free again; "7" was never the same id as 7.
    const reused = await session.callTool(7, 'fault__echo', { text: 'again' });
    expect(JSON.stringify(await messagesOf(reused))).toContain('echo:again');
    const other = await session.callTool('7', 'fault__echo', { text: 'string id' });
    expect(other.status).toBe(200);
    await other.text();
    expect(
      await gatewayMetric(gateway, 'tollgate_mcp_refusals_total{reason="duplicate_request_id"}'),
    ).toBe(1);
  });

  it('M9 a batch that repeats an id is refused whole before any of it runs', async () => {
    const session = await RawMcpSession.open(gateway.url('/mcp'));
    const batch = await session.post([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'fault__echo', arguments: {} },
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    ]);
    expect(batch.status).toBe(409);
    expect(await batch.json()).toMatchObject({
      error: { data: { reason: 'duplicate_request_id', id: 1 } },
    });
    const after = await session.callTool(1, 'fault__echo', { text: 'ok' });
    expect(JSON.stringify(await messagesOf(after))).toContain('echo:ok');
  });
});
