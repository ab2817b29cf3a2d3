import type { ToolInteractionUpdate } from '@tollgate/protocol';
import type { PromptKey } from '../prompt/prompt-state';

/** A parked refresh, as the sweeper sees it. */
export interface OwedRefresh {
  readonly key: PromptKey;
  readonly seq: number;
  readonly output: ToolInteractionUpdate;
}

/** Refreshes owed to the platform, kept until shown (or overtaken) — see the migration. */
export interface OwedRefreshes {
  /** Parks a validated refresh; resolves once it is stored (the delivery may then be acked). */
  owe(output: ToolInteractionUpdate): Promise<void>;
  /** The oldest owed refreshes no live lease holds. */
  due(limit: number): Promise<OwedRefresh[]>;
  /** Takes one for `leaseMs`; false when another replica holds it or it changed. */
  lease(owed: OwedRefresh, owner: string, leaseMs: number): Promise<boolean>;
  /** Shown or overtaken: forgotten, unless a newer refresh was parked meanwhile. */
  done(owed: OwedRefresh): Promise<void>;
  /** Not shown (a transient failure): another attempt may take it at once. */
  release(owed: OwedRefresh): Promise<void>;
}
