import { accepted, quoteValue, refused, type ParseResult } from './parse-result';

export const DEFAULT_SUBJECT_PREFIX = 'tollgate';

const PREFIX_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Reads `TOLLGATE_SUBJECT_PREFIX` (docs/protocol.md §2). An empty value counts as unset, as it does
 * for every other variable (a compose file's `FOO=` means "not given").
 */
export function parseSubjectPrefix(raw: string | undefined): ParseResult<string> {
  if (raw === undefined || raw === '') {
    return accepted(DEFAULT_SUBJECT_PREFIX);
  }
  if (!PREFIX_PATTERN.test(raw)) {
    return refused(
      'invalid_prefix',
      `subject prefix ${quoteValue(raw)} must be one token matching ${PREFIX_PATTERN.source}`,
    );
  }
  return accepted(raw);
}

export class InvalidSubjectPrefixError extends Error {
  override readonly name = 'InvalidSubjectPrefixError';

  constructor(readonly detail: string) {
    super(detail);
  }
}

/** For code handed a prefix that should already have been parsed at start. */
export function assertSubjectPrefix(prefix: string): void {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new InvalidSubjectPrefixError(
      `subject prefix ${quoteValue(prefix)} must match ${PREFIX_PATTERN.source}`,
    );
  }
}

/**
 * The prefix as docs/protocol.md §2 spells it in stream names. Beware: `a-b` and `a_b` map to the
 * same streams while their subjects differ, so two deployments must not use such a pair.
 */
export function streamNamePart(prefix: string): string {
  assertSubjectPrefix(prefix);
  return prefix.toUpperCase().replace(/-/g, '_');
}
