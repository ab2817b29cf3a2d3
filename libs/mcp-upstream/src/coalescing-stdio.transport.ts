import {
  StdioClientTransport,
  type StdioServerParameters,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Writable } from 'node:stream';
import { JsonLineBuffer } from './json-line.buffer';

/**
 * The SDK's stdio client transport, with the messages sent in one turn of the event loop
 * written to the server's stdin together. The gateway multiplexes every agent's calls onto one
 * pipe per upstream: under concurrency several calls arrive in the same turn, and one write
 * per message was a syscall and a wake-up of the server each, on the CPU the agent, the
 * gateway and the server share. Spawning, reading, framing and closing stay the SDK's; what
 * reaches the server, and in what order, is unchanged. Lines read back are parsed as JSON and
 * validated once, by the Client's own router (see JsonLineBuffer).
 */
export class CoalescingStdioClientTransport extends StdioClientTransport {
  private flushing: Writable | undefined;

  constructor(server: StdioServerParameters) {
    super(server);
    // The SDK keeps its read buffer to itself: its field is replaced, and left alone if a
    // later SDK has none (its own buffer then validates each line twice, as before).
    const fields = this as unknown as { _readBuffer?: unknown };
    if (fields._readBuffer instanceof ReadBuffer) {
      fields._readBuffer = new JsonLineBuffer(server.maxBufferSize);
    }
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.stdin();
    // Not started, or closed: the SDK's own send says so.
    if (stdin === undefined || !stdin.writable) return super.send(message);
    if (this.flushing !== stdin) {
      this.flushing = stdin;
      stdin.cork();
      // After this turn's I/O callbacks: every message they sent goes out in one writev.
      setImmediate(() => {
        this.flushing = undefined;
        stdin.uncork();
      });
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** The child's stdin: the SDK keeps its process to itself, so this reads its field. */
  private stdin(): Writable | undefined {
    const child = (this as unknown as { _process?: { stdin?: Writable | null } })._process;
    return child?.stdin ?? undefined;
  }
}
