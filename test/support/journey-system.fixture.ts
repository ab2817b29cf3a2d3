import type { Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { BindingFixture } from './binding.fixture';
import { SessionServiceFixture } from './session-service.fixture';
import { uniqueToken } from './unique';

/** One platform's stand-in, its built binding and the session-service, on one subject prefix. */
export interface JourneySystem {
  readonly driver: PlatformDriver;
  readonly session: SessionServiceFixture;
  readonly binding: BindingFixture;
  dispose(): Promise<void>;
}

/**
 * Starts what a journey through one platform needs. `tag` (a letter or two) names the test's
 * prefix, schemas and processes; `sessionEnv` is added to the session-service's environment
 * (a policy file, say), `bindingEnv` to the binding's. Whatever started is stopped again if a
 * later part fails to start. `options.prefix` is the subject prefix to use (journeyPrefix's),
 * for a caller that starts something else on it at the same time.
 */
export async function startJourneySystem(
  platform: Platform,
  tag: string,
  sessionEnv: Record<string, string> = {},
  bindingEnv: Record<string, string> = {},
  options: { prefix?: string } = {},
): Promise<JourneySystem> {
  const driver = CONTRACT_DRIVERS[platform]!();
  await driver.start();
  const prefix = options.prefix ?? journeyPrefix(platform, tag);
  const startSession = () =>
    SessionServiceFixture.create(`${tag}${platform}ss`, sessionEnv, { prefix });
  const startBinding = () =>
    BindingFixture.create(
      `${platform}-binding`,
      `${tag}${platform}b`,
      () => driver.bindingEnv(),
      bindingEnv,
      { prefix },
    );
  // The binding needs nothing of the session service to start (its own schema; it creates
  // the streams it uses itself, and a create that races the session service's is taken as
  // found), so both boot at once: a journey's set-up waits for the slower, not for the sum.
  // Only when the two would define the shared streams differently does the session service
  // go first, so that its definition is the one the streams get, as before.
  const parts = sameStreamDefinitions(sessionEnv, bindingEnv)
    ? await Promise.allSettled([startSession(), startBinding()])
    : await startInOrder(startSession, startBinding);
  const [session, binding] = parts;
  if (session.status === 'rejected' || binding.status === 'rejected') {
    // Each create already stopped its own process if it never became ready.
    if (binding.status === 'fulfilled') await binding.value.dispose();
    if (session.status === 'fulfilled') await session.value.dispose();
    await driver.stop();
    throw session.status === 'rejected'
      ? session.reason
      : (binding as PromiseRejectedResult).reason;
  }
  return {
    driver,
    session: session.value,
    binding: binding.value,
    async dispose() {
      await binding.value.dispose();
      await session.value.dispose();
      await driver.stop();
    },
  };
}

/** A fresh subject prefix for a journey system of `platform` tagged `tag`. */
export function journeyPrefix(platform: Platform, tag: string): string {
  return uniqueToken(`${tag}${platform}`).slice(0, 24);
}

/** The variables that shape the streams the services create on a shared prefix. */
const STREAM_SHAPING = ['TOLLGATE_OUT_MAX_AGE_DAYS', 'TOLLGATE_STREAM_MAX_BYTES'];

/**
 * Whether two services' environments define the shared streams alike, so that they may start
 * at once: whichever creates a stream first gives it its definition.
 */
export function sameStreamDefinitions(
  a: Record<string, string>,
  b: Record<string, string>,
): boolean {
  return STREAM_SHAPING.every((name) => a[name] === b[name]);
}

async function startInOrder(
  startSession: () => Promise<SessionServiceFixture>,
  startBinding: () => Promise<BindingFixture>,
): Promise<[PromiseSettledResult<SessionServiceFixture>, PromiseSettledResult<BindingFixture>]> {
  const [session] = await Promise.allSettled([startSession()]);
  if (session.status === 'rejected') {
    return [session, { status: 'rejected', reason: new Error('not started') }];
  }
  const [binding] = await Promise.allSettled([startBinding()]);
  return [session, binding];
}
