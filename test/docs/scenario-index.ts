import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A scenario id: the family letter and its number, as docs/scenarios.md lists them. */
export const SCENARIO_ID = /^[SBEXRPWDAMG]\d{1,2}$/;

export interface ListedScenario {
  readonly id: string;
  /** The test files the entry names as its proof. */
  readonly files: readonly string[];
}

/**
 * The scenarios docs/scenarios.md lists: one `- **ID** behaviour … — `file`, `file`` entry
 * each. Entries are read by their bold id; file names are the backticked paths ending in
 * `.spec.ts` after the id.
 */
export function listedScenarios(markdown: string): ListedScenario[] {
  const entries: ListedScenario[] = [];
  const blocks = markdown.split(/\n(?=- \*\*)/);
  for (const block of blocks) {
    const head = /^- \*\*([A-Z]\d{1,2})\*\*/.exec(block.trimStart());
    if (!head) continue;
    const files = [...block.matchAll(/`([^`\s]+\.spec\.ts)`/g)].map((m) => m[1]);
    entries.push({ id: head[1], files });
  }
  return entries;
}

const SOURCE_DIRS = ['apps', 'libs', 'test', 'bench', 'scripts'];
const SOURCE_FILE = /\.(ts|mjs|js)$/;

/** Every source file under the repo's code folders, relative to the root. */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) found.push(relative(root, path));
    }
  };
  for (const dir of SOURCE_DIRS) {
    try {
      walk(join(root, dir));
    } catch {
      // A folder the checkout does not have holds no tests.
    }
  }
  return found;
}

/**
 * The scenario ids test titles start with: a string literal opened right after a `(` —
 * `it('S1 …'`, `describe('X2 — …'`, and `it.each(…)('B4 %s …'` across lines — whose first
 * word is an id.
 */
export function testedIds(source: string): Set<string> {
  const ids = new Set<string>();
  for (const match of source.matchAll(/\(\s*['"`]([A-Z]\d{1,2})[ :—–-]/g)) {
    if (SCENARIO_ID.test(match[1])) ids.add(match[1]);
  }
  return ids;
}

/** Which files carry a test named after each id. */
export function testsById(root: string): Map<string, Set<string>> {
  const byId = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    for (const id of testedIds(readFileSync(join(root, file), 'utf8'))) {
      if (!byId.has(id)) byId.set(id, new Set());
      byId.get(id)!.add(file);
    }
  }
  return byId;
}
