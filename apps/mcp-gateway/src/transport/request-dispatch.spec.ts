import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { routeRequestsDirectly } from './request-dispatch';

/** A transport whose messages the test hands in and reads back. */
class MemoryTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
  }
}

async function connected(): Promise<{
  server: Server;
  transport: MemoryTransport;
  sdkRouter: unknown;
}> {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `ran ${request.params.name}` }],
  }));
  const transport = new MemoryTransport();
  await server.connect(transport);
  const sdkRouter = transport.onmessage;
  routeRequestsDirectly(server, transport);
  transport.onmessage?.({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    },
  });
  await until(() => transport.sent.length === 1);
  transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { server, transport, sdkRouter };
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('routeRequestsDirectly', () => {
  it('takes requests past the SDK router: the transport no longer delivers to it', async () => {
    const { transport, sdkRouter } = await connected();
    expect(transport.onmessage).not.toBe(sdkRouter);
  });

  it('answers a request as the SDK does, and still refuses a malformed one', async () => {
    const { transport } = await connected();
    transport.onmessage?.({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'fs__read', arguments: {} },
    });
    transport.onmessage?.({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { arguments: {} },
    });
    await until(() => transport.sent.length === 3);
    const answers = new Map(transport.sent.slice(1).map((m) => [(m as { id: number }).id, m]));
    expect(answers.get(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'ran fs__read' }] },
    });
    expect(answers.get(2)).toMatchObject({ id: 2, error: { code: expect.any(Number) } });
  });

  it('leaves responses to the SDK router: a request the server made is settled', async () => {
    const { server, transport } = await connected();
    const ping = server.ping();
    await until(() => transport.sent.length === 2);
    const asked = transport.sent[1] as { id: number; method: string };
    expect(asked.method).toBe('ping');
    transport.onmessage?.({ jsonrpc: '2.0', id: asked.id, result: {} });
    await expect(ping).resolves.toEqual({});
  });

  it('leaves the SDK router in place when the Protocol has no request entry point', () => {
    const transport = new MemoryTransport();
    const router: Transport['onmessage'] = () => undefined;
    transport.onmessage = router;
    routeRequestsDirectly({} as Server, transport);
    expect(transport.onmessage).toBe(router);
  });
});
