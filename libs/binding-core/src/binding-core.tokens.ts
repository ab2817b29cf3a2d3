/** Injection tokens of the binding core; the adapter's is PLATFORM_ADAPTER, beside its port. */
export const BINDING_CORE_OPTIONS = Symbol('BINDING_CORE_OPTIONS');
/** This process's id on every lease it takes. */
export const REPLICA_ID = Symbol('REPLICA_ID');
export const COMMAND_PUBLISHER = Symbol('COMMAND_PUBLISHER');
