import type { Platform } from '@tollgate/protocol';
import { ApprovalApiSystem } from './approval-api.fixture';
import { startJourneySystem, type JourneySystem } from './journey-system.fixture';

/** A journey system with the built approval-api beside it, on the same subject prefix. */
export interface ApiJourneySystem extends JourneySystem {
  readonly approvals: ApprovalApiSystem;
}

/**
 * What an outside agent's journey through one platform needs: the platform's stand-in, its
 * built binding, the session service and approval-api, all on one prefix, so an HTTP request
 * becomes a prompt a person answers and the decision comes back to HTTP. `sessionEnv`,
 * `apiEnv` and `bindingEnv` are added to those services' environments (a short timer poll, a
 * short webhook retry). Whatever started is stopped again if a later part fails to start.
 */
export async function startApiJourneySystem(
  platform: Platform,
  tag: string,
  {
    sessionEnv = {},
    apiEnv = {},
    bindingEnv = {},
  }: {
    sessionEnv?: Record<string, string>;
    apiEnv?: Record<string, string>;
    bindingEnv?: Record<string, string>;
  } = {},
): Promise<ApiJourneySystem> {
  const system = await startJourneySystem(platform, tag, sessionEnv, bindingEnv);
  try {
    const approvals = await ApprovalApiSystem.start(`${tag}${platform}`, {
      prefix: system.session.prefix,
      env: apiEnv,
    });
    return {
      ...system,
      approvals,
      async dispose() {
        await approvals.stop();
        await system.dispose();
      },
    };
  } catch (error) {
    await system.dispose();
    throw error;
  }
}
