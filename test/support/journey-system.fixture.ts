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
 * later part fails to start.
 */
export async function startJourneySystem(
  platform: Platform,
  tag: string,
  sessionEnv: Record<string, string> = {},
  bindingEnv: Record<string, string> = {},
): Promise<JourneySystem> {
  const driver = CONTRACT_DRIVERS[platform]!();
  await driver.start();
  let session: SessionServiceFixture | undefined;
  try {
    const prefix = uniqueToken(`${tag}${platform}`).slice(0, 24);
    session = await SessionServiceFixture.create(`${tag}${platform}ss`, sessionEnv, { prefix });
    const binding = await BindingFixture.create(
      `${platform}-binding`,
      `${tag}${platform}b`,
      () => driver.bindingEnv(),
      bindingEnv,
      { prefix },
    );
    const started = session;
    return {
      driver,
      session: started,
      binding,
      async dispose() {
        await binding.dispose();
        await started.dispose();
        await driver.stop();
      },
    };
  } catch (error) {
    await session?.dispose();
    await driver.stop();
    throw error;
  }
}
