import { type OptionValues, UsageError } from '../cli-command';

export const NATS_ENV_HELP = [
  'Connects as the services do: NATS_URL (default nats://127.0.0.1:4222, comma-separated',
  'for a cluster), NATS_USER + NATS_PASSWORD or NATS_CREDS (the `operator` user of',
  '`npm run nats:config`), and TOLLGATE_SUBJECT_PREFIX (default tollgate) naming the stream',
  '<PREFIX>_DLQ.',
].join('\n');

/** A DLQ stream sequence as typed: a positive integer, nothing else. */
export function seqOf(operand: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(operand) || !Number.isSafeInteger(Number(operand))) {
    throw new UsageError(`"${operand}" is not a DLQ sequence number (a positive integer)`);
  }
  return Number(operand);
}

export function serviceOf(values: OptionValues): string | undefined {
  const service = values.service;
  if (service === undefined || typeof service !== 'string') return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(service)) {
    throw new UsageError('--service must be a service name, e.g. slack-binding');
  }
  return service;
}
