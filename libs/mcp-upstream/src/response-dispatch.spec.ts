import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  JSONRPCResultResponseSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { isPlainResultResponse, routeResponsesDirectly } from './response-dispatch';

async function connected(): Promise<{ client: Client; server: Server; sdkRouter: unknown }> {
  const server = new Server(
    { name: 's', version: '1' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'fails') throw new McpError(-32602, 'no such tool');
    return { content: [{ type: 'text', text: `ran ${request.params.name}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  const sdkRouter = clientSide.onmessage;
  routeResponsesDirectly(client, clientSide);
  expect(clientSide.onmessage).not.toBe(sdkRouter);
  return { client, server, sdkRouter };
}

/** Messages as JSON.parse makes them: most near a result response's envelope. */
const messages = fc
  .record(
    {
      jsonrpc: fc.oneof(
        { weight: 4, arbitrary: fc.constant('2.0') },
        { weight: 1, arbitrary: fc.constantFrom('1.0', 2) },
      ),
      id: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constantFrom(2 ** 53, null)),
      result: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.dictionary(
            fc.constantFrom('content', 'isError', '_meta', '__proto__', 'x'),
            fc.jsonValue(),
          ),
        },
        fc.jsonValue(),
      ),
    },
    { requiredKeys: ['jsonrpc', 'id'] },
  )
  .chain((envelope) =>
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        fc.tuple(fc.constantFrom('error', 'method', 'extra', '__proto__'), fc.jsonValue()),
      )
      .map((added) =>
        added === null
          ? JSON.stringify(envelope)
          : `${JSON.stringify(envelope).slice(0, -1)},${JSON.stringify(added[0])}:${JSON.stringify(added[1])}}`,
      ),
  )
  .map((text) => JSON.parse(text) as unknown);

describe('M1 — an upstream answer routed without a second schema check', () => {
  it('M1 says a message is a plain result response only where the SDK schema accepts it', () => {
    let plain = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: messages }, fc.jsonValue()), (message) => {
        if (!isPlainResultResponse(message)) return;
        plain += 1;
        expect(JSONRPCResultResponseSchema.safeParse(message).success).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    expect(plain).toBeGreaterThan(250);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, result: { _meta: {} } })).toBe(false);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, result: {}, error: {} })).toBe(false);
  });

  it('M1 a call is answered, an error still rejects, and a notification still reaches its handler', async () => {
    const { client, server } = await connected();
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'read', arguments: {} } },
        CallToolResultSchema,
      ),
    ).resolves.toEqual({ content: [{ type: 'text', text: 'ran read' }] });
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'fails', arguments: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toThrow('no such tool');
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await server.sendToolListChanged();
    await changed;
  });

  it('M1 leaves the SDK router in place when the Protocol has no response entry point', () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    const router: typeof clientSide.onmessage = () => undefined;
    clientSide.onmessage = router;
    routeResponsesDirectly({} as Client, clientSide);
    expect(clientSide.onmessage).toBe(router);
  });
});
