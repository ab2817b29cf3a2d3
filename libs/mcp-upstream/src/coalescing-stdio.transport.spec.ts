import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CoalescingStdioClientTransport } from './coalescing-stdio.transport';

/** Answers each request line, in order. */
const ECHO_READS = `
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let end;
  while ((end = buffered.indexOf('\\n')) !== -1) {
    const { id } = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\\n');
  }
});
`;

describe('M1 the upstream stdio transport', () => {
  let transport: CoalescingStdioClientTransport;
  const answers: number[] = [];

  beforeEach(async () => {
    answers.length = 0;
    transport = new CoalescingStdioClientTransport({
      command: process.execPath,
      args: ['-e', ECHO_READS],
    });
    transport.onmessage = (message: JSONRPCMessage) => {
      const { id } = message as unknown as { id: number };
      answers.push(id);
    };
    await transport.start();
  });

  afterEach(() => transport.close());

  const request = (id: number): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'read_text_file', arguments: { path: '/tmp/x' } },
  });

  async function answered(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (answers.length < count) {
      if (Date.now() > deadline) throw new Error(`${answers.length} of ${count} answered`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('M1 the upstream stdio transport writes the messages of one event-loop turn together, in order, and later ones after them', async () => {
    // The writes the child's stdin makes to its pipe: one per message, or one for many.
    const stdin = (transport as unknown as { _process: { stdin: Record<string, unknown> } })
      ._process.stdin;
    const writes: number[] = [];
    for (const name of ['_write', '_writev']) {
      const original = stdin[name] as (chunks: unknown, ...rest: unknown[]) => void;
      stdin[name] = function (this: unknown, chunks: unknown, ...rest: unknown[]) {
        writes.push(Array.isArray(chunks) ? chunks.length : 1);
        return original.call(this, chunks, ...rest);
      };
    }

    const sends = Array.from({ length: 20 }, (_, i) => transport.send(request(i + 1)));
    await Promise.all(sends);
    await answered(20);
    await transport.send(request(21));
    await answered(21);

    expect(answers).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(writes).toEqual([20, 1]);
  });

  it('M1 the upstream stdio transport refuses a send before it is started, as the SDK transport does', async () => {
    const idle = new CoalescingStdioClientTransport({ command: process.execPath, args: [] });
    await expect(idle.send(request(1))).rejects.toThrow('Not connected');
  });
});
