import { canonicalize } from 'json-canonicalize';
import { z } from 'zod';
import { LIMITS } from './limits';

/** Deeper than any tool's real arguments, shallow enough that no walk runs out of stack. */
export const MAX_ARGUMENTS_DEPTH = 64;

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Why `value` is not a tool's arguments as the approval API takes them (a JSON object of at most
 * 256 KiB as canonical JSON, nested at most 64 deep), or undefined. Walked without recursion, so
 * a hostile nesting gets a reason, not a stack overflow.
 */
export function jsonArgumentsProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a JSON object';
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > MAX_ARGUMENTS_DEPTH) return `must be nested at most ${MAX_ARGUMENTS_DEPTH} deep`;
    if (node === null || typeof node === 'string' || typeof node === 'boolean') continue;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return 'must hold only finite numbers';
      continue;
    }
    const children = Array.isArray(node)
      ? node
      : isPlainObject(node)
        ? Object.values(node)
        : undefined;
    if (children === undefined) return 'must hold only JSON values';
    for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
  const bytes = Buffer.byteLength(canonicalize(value), 'utf8');
  return bytes > LIMITS.apiArgumentsBytes
    ? `must be at most ${LIMITS.apiArgumentsBytes} bytes as canonical JSON, not ${bytes}`
    : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export const jsonArgumentsSchema = z.custom<JsonObject>().superRefine((value, ctx) => {
  const problem = jsonArgumentsProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});
