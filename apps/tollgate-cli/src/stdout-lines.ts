import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CliFailure } from './cli-command';

/**
 * The CLI's standard output as lines, with the stream's backpressure made visible. Node writes
 * to a pipe asynchronously and queues what the reader has not taken yet, in the heap: a command
 * that prints without bound (`audit export`) awaits `writable()` between lines, so a slow
 * reader slows the export instead of the export's lines piling up in memory (100,000 entries
 * read at 4 MB/s queued 40 MB).
 */
export class StdoutLines {
  private failure: Error | undefined;

  constructor(private readonly stream: Writable) {
    // With no listener, a reader that goes away (`| head`) would crash the CLI mid-command.
    // Like console.log, lines after that are dropped; writable() reports it so a long
    // export stops instead of reading the rest of the database for nobody.
    stream.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  line(text: string): void {
    if (this.failure === undefined) this.stream.write(`${text}\n`);
  }

  /** Resolves once the stream has room again (at once when it has); rejects when it is gone. */
  async writable(): Promise<void> {
    if (this.failure === undefined && this.stream.writableNeedDrain) {
      try {
        await once(this.stream, 'drain');
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    if (this.failure !== undefined) {
      throw new CliFailure(`cannot write the output: ${this.failure.message}`);
    }
  }
}
