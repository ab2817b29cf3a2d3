import type { ApprovalDecided } from './approval-decided.schema';
import type { Command } from './commands.schema';
import type { Output } from './outputs.schema';
import { accepted, refused, type ParseResult } from './parse-result';

const encoder = new TextEncoder();
// Fatal, so bytes that are not UTF-8 are refused instead of silently turned into U+FFFD.
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The payload bytes of a message: its JSON text in UTF-8. */
export function encodeMessage(message: Command | Output | ApprovalDecided): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

/**
 * Bytes and strings are JSON text to decode; anything else is taken as already decoded (an
 * HTTP body parser, a test), so every entry point validates the same way.
 */
export function decodeJson(input: unknown): ParseResult<unknown> {
  let text: string;
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    try {
      text = decoder.decode(input);
    } catch {
      return refused('invalid_json', 'payload is not UTF-8 text');
    }
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return accepted(input);
  }
  try {
    return accepted(JSON.parse(text) as unknown);
  } catch (error) {
    return refused('invalid_json', `payload is not JSON: ${(error as Error).message}`);
  }
}
