import { context, type Context } from '@opentelemetry/api';
import { tracingEnabled } from './tracing-switch';

/**
 * Trace contexts of objects that wait in a queue (a session's mailbox) and are worked on
 * later, from another async chain whose active context belongs to whatever started it.
 * Weakly held: a dropped object takes its context with it.
 */
const carried = new WeakMap<object, Context>();

/** Remembers the active context for `item`; nothing when tracing is off. */
export function carryContext(item: object): void {
  if (!tracingEnabled()) return;
  carried.set(item, context.active());
}

/** The context remembered for `item`, if any. */
export function carriedContext(item: object): Context | undefined {
  if (!tracingEnabled()) return undefined;
  return carried.get(item);
}
