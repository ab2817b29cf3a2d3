// Where in the file a problem is: a zod or registry path mapped to the YAML document's line,
// and the path written the way the file reads ("tools.echo.options[1]"). Apart from the
// loader because it knows the yaml library's node shapes and nothing of the policy.
import { type Document, isMap, isScalar, isSeq } from 'yaml';

/** The line of the deepest node of `path` the document has (a map key's own line). */
export function lineOf(
  doc: Document,
  lineAt: (offset: number) => number,
  path: readonly PropertyKey[],
) {
  let node: unknown = doc.contents;
  let line = hasRange(node) ? lineAt(node.range[0]) : 1;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      if (hasRange(pair.key)) line = lineAt(pair.key.range[0]);
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (!hasRange(item)) break;
      line = lineAt(item.range[0]);
      node = item;
    } else {
      break;
    }
  }
  return line;
}

function hasRange(node: unknown): node is { range: [number, number, number] } {
  return (
    typeof node === 'object' && node !== null && Array.isArray((node as { range?: unknown }).range)
  );
}

export function describe(path: readonly PropertyKey[], problem: string): string {
  if (path.length === 0) return `the file ${problem}`;
  const text = path
    .map((segment, i) =>
      typeof segment === 'number' ? `[${segment}]` : `${i > 0 ? '.' : ''}${String(segment)}`,
    )
    .join('');
  return `${text} ${problem}`;
}

export function byLine<T extends { line?: number }>(problems: T[]): T[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
