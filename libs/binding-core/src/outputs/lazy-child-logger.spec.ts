import { Writable } from 'node:stream';
import pino from 'pino';
import { lazyChildLogger } from './lazy-child-logger';

function recordingLogger(level: string): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

describe('D6 lazyChildLogger: an output logger made only when it logs', () => {
  it('D6 a disabled level makes no child; an enabled one logs with the bindings', async () => {
    const { logger, lines } = recordingLogger('warn');
    const child = jest.spyOn(logger, 'child');
    let asked = 0;
    const log = lazyChildLogger(logger, () => {
      asked += 1;
      return { outputId: 'out_1' };
    });

    log.debug('not shown');
    log.info({ a: 1 }, 'not shown either');
    expect(child).not.toHaveBeenCalled();
    expect(asked).toBe(0);

    log.warn({ reason: 'x' }, 'shown');
    log.error('shown too');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    expect(lines.map((l) => [l.msg, l.outputId])).toEqual([
      ['shown', 'out_1'],
      ['shown too', 'out_1'],
    ]);
  });
});
