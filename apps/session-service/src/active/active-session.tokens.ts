// The injection tokens of ActiveSessionModule's values (no class to inject them by); apart so
// the module and the service it provides import them without importing each other.
export const ACTIVE_DATA_SOURCE = Symbol('ACTIVE_DATA_SOURCE');
export const SESSION_DEPS = Symbol('SESSION_DEPS');
export const ACTIVE_LOGGER = Symbol('ACTIVE_LOGGER');
/** The session service's clock (`() => Date`), offset in tests by TOLLGATE_TEST_CLOCK_OFFSET_MS. */
export const ACTIVE_CLOCK = Symbol('ACTIVE_CLOCK');
