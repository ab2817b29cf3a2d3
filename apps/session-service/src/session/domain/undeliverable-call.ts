/**
 * The option key an undeliverable call is settled with (docs/protocol.md §4,
 * `ToolInteractionUndeliverable`). Not one of the standard keys, so no prompt can offer it and
 * no click can produce it; the redrive reads it to tell "never shown" from "denied".
 */
export const UNDELIVERABLE_OPTION_KEY = 'undeliverable';

/** The call's tool result, and so its line in the batch reply (docs/protocol.md §4). */
export const RESULT_UNDELIVERABLE = 'not shown (undeliverable)';
