import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { StartupFailure } from './startup-failure';

export interface ProvisionRun {
  readonly root: string;
  readonly natsUrl: string;
  readonly password: string;
  /** The subject prefix and the tuning the services get (ack wait, ages): the same definitions. */
  readonly env: Record<string, string>;
  /** The NATS store, as shown to the newcomer, named when it holds streams of another shape. */
  readonly natsDir: string;
}

/**
 * `npm run provision` as the `operator` user, exactly as a deployment does it before its
 * services start: the same script, so the sandbox cannot drift from production's definitions.
 */
export async function provisionAsOperator(run: ProvisionRun): Promise<void> {
  const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(run.root, 'scripts', 'provision.mjs')],
      {
        cwd: run.root,
        env: {
          LOG_LEVEL: 'warn',
          ...run.env,
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          NATS_URL: run.natsUrl,
          NATS_USER: 'operator',
          NATS_PASSWORD: run.password,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.replaceAll(run.password, '<password>') });
      },
    );
  });
  if (outcome.code === 0) return;
  if (outcome.code === 2) {
    throw new StartupFailure(
      `the NATS store in ${run.natsDir} holds streams or durables of another shape than this ` +
        `version defines (made by an earlier npm start?), and no user may rewrite them:\n` +
        `${outcome.output.trim()}\n` +
        `Delete ${run.natsDir} (messages still in it are lost; the conversations and ` +
        'the database are kept), and run npm start again.',
    );
  }
  throw new StartupFailure(`provisioning NATS failed (exit ${outcome.code}):\n${outcome.output}`);
}
