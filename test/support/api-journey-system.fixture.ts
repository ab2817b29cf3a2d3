import type { Platform } from '@tollgate/protocol';
import { ApprovalApiSystem } from './approval-api.fixture';
import {
  journeyPrefix,
  type JourneySystem,
  sameStreamDefinitions,
  startJourneySystem,
} from './journey-system.fixture';

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
  const prefix = journeyPrefix(platform, tag);
  const startSystem = () => startJourneySystem(platform, tag, sessionEnv, bindingEnv, { prefix });
  const startApi = () => ApprovalApiSystem.start(`${tag}${platform}`, { prefix, env: apiEnv });
  // The approval-api needs nothing of the others to boot (its own schema; the streams it uses
  // it creates itself), so all three start at once unless it would define the shared streams
  // otherwise than the session service: then the session service goes first, as before.
  let parts: [PromiseSettledResult<JourneySystem>, PromiseSettledResult<ApprovalApiSystem>];
  if (sameStreamDefinitions(sessionEnv, apiEnv)) {
    parts = await Promise.allSettled([startSystem(), startApi()]);
  } else {
    const [system] = await Promise.allSettled([startSystem()]);
    parts = [
      system,
      system.status === 'fulfilled'
        ? (await Promise.allSettled([startApi()]))[0]
        : { status: 'rejected', reason: new Error('not started') },
    ];
  }
  const [system, approvals] = parts;
  if (system.status === 'rejected' || approvals.status === 'rejected') {
    // Each start already stopped what it started if it failed part-way.
    if (approvals.status === 'fulfilled') await approvals.value.stop();
    if (system.status === 'fulfilled') await system.value.dispose();
    throw system.status === 'rejected'
      ? system.reason
      : (approvals as PromiseRejectedResult).reason;
  }
  return {
    ...system.value,
    approvals: approvals.value,
    async dispose() {
      await approvals.value.stop();
      await system.value.dispose();
    },
  };
}
