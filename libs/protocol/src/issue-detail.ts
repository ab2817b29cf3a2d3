import type { z } from 'zod';

/**
 * The first schema issue as `<path>: <problem>`, which is what an operator reading a
 * dead-lettered message needs first; the rest are only counted to keep the detail bounded.
 */
export function issueDetail(error: z.ZodError): string {
  const [first] = error.issues;
  if (first === undefined) {
    return 'invalid payload';
  }
  const path = first.path.length === 0 ? '(message)' : formatPath(first.path);
  const more = error.issues.length - 1;
  return `${path}: ${first.message}${more > 0 ? ` (+${more} more)` : ''}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') {
        return `[${segment}]`;
      }
      const name = String(segment);
      return index === 0 ? name : `.${name}`;
    })
    .join('');
}
