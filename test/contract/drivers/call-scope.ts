import type { FaultScope } from '@tollgate/platform-standins';
import type { CallScope } from '../platform-driver';

/** A contract call scope in the fakes' terms: replica → client path, conversation → channel. */
export function faultScopeOf(scope: CallScope): FaultScope {
  return {
    ...(scope.replica === undefined ? {} : { client: scope.replica }),
    ...(scope.conversation === undefined ? {} : { channel: scope.conversation.channelId }),
  };
}

/** Whether a recorded fake call (from `client`, about `channel`) falls within the scope. */
export function withinScope(
  call: { readonly client?: string | undefined },
  channel: unknown,
  scope: CallScope,
): boolean {
  return (
    (scope.replica === undefined || call.client === scope.replica) &&
    (scope.conversation === undefined || channel === scope.conversation.channelId)
  );
}
