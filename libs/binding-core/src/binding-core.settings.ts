import type { Platform } from '@tollgate/protocol';

/** The binding core's own settings, resolved from the module options and the service config. */
export interface BindingCoreSettings {
  readonly platform: Platform;
  readonly leaseMs: number;
  readonly maxInFlight?: number;
}
