import { Client } from 'pg';

/**
 * Every statement any pg client of this process sends while `work` runs, with what `work`
 * answered: how many round trips an output or a journal costs (D6).
 */
export async function statementsOf<T>(
  work: () => Promise<T>,
): Promise<{ sent: string[]; result: T }> {
  const sent: string[] = [];
  const original = Client.prototype.query;
  const recording = function (this: Client, ...args: unknown[]): unknown {
    const [config] = args as [string | { text: string }];
    sent.push(typeof config === 'string' ? config : config.text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
  Client.prototype.query = recording as typeof original;
  try {
    return { result: await work(), sent };
  } finally {
    Client.prototype.query = original;
  }
}
