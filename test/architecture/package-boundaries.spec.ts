import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Every import, export-from, dynamic import and require specifier in a source text. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const pattern = /\b(?:from\s+|import\s*\(\s*|require\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** `apps/<name>` or `libs/<name>` a repository path lies in, if any. */
function packageOf(path: string): string | undefined {
  const [kind, name] = path.split(sep);
  return (kind === 'apps' || kind === 'libs') && name !== undefined ? `${kind}/${name}` : undefined;
}

/** Why `file` (a path from the root) may not import `specifier`, or undefined if it may. */
function violation(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const from = packageOf(file);
  const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
  const to = packageOf(target);
  if (from === undefined || to === undefined || to === from) return undefined;
  if (to.startsWith('apps/')) return `${file} imports ${to}'s code (${specifier})`;
  // Specs and testing helpers may take a lib's testing fixtures by path; code uses the alias.
  const testing = /\.spec\.ts$|[\\/]testing[\\/]/.test(file);
  if (!testing) return `${file} reaches ${to} by path (${specifier}), not by @tollgate/<lib>`;
  return undefined;
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

describe('D5 — package boundaries', () => {
  it('D5 no app imports another app, and no package reaches into another by path', () => {
    const problems: string[] = [];
    let files = 0;
    for (const kind of ['apps', 'libs']) {
      for (const pkg of readdirSync(join(ROOT, kind))) {
        for (const path of sources(join(ROOT, kind, pkg))) {
          files += 1;
          const file = relative(ROOT, path);
          for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
            const why = violation(file, specifier);
            if (why) problems.push(why);
          }
        }
      }
    }
    expect(files).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it('D5 only an entry point ends the process: a service reports a FatalFailure instead', () => {
    const entryPoints = new Set([
      join('libs', 'service-runtime', 'src', 'bootstrap.ts'),
      ...readdirSync(join(ROOT, 'apps')).map((app) => join('apps', app, 'src', 'main.ts')),
    ]);
    const exiting: string[] = [];
    for (const kind of ['apps', 'libs']) {
      for (const pkg of readdirSync(join(ROOT, kind))) {
        for (const path of sources(join(ROOT, kind, pkg))) {
          const file = relative(ROOT, path);
          if (entryPoints.has(file) || /\.spec\.ts$|[\\/]testing[\\/]/.test(file)) continue;
          if (/\bprocess\.exit\s*\(/.test(readFileSync(path, 'utf8'))) exiting.push(file);
        }
      }
    }
    expect(exiting).toEqual([]);
  });

  it('D5 the scan names what the CLI used to import from the session-service, and lets a lib fixture pass in a spec', () => {
    const cli = join('apps', 'tollgate-cli', 'src', 'session-database.ts');
    const source = [
      "import { MIGRATIONS } from '../../session-service/src/migrations';",
      "import type { GrantRecord } from '../../session-service/src/grants/tool-grants.repository';",
      "const lazy = () => import('../../session-service/src/journal/session-store');",
      "import { pino } from 'pino';",
      "import { SESSION_SCHEMA_MIGRATIONS } from '@tollgate/session-read-model';",
    ].join('\n');
    expect(specifiers(source).map((s) => violation(cli, s))).toEqual([
      `${cli} imports apps/session-service's code (../../session-service/src/migrations)`,
      `${cli} imports apps/session-service's code (../../session-service/src/grants/tool-grants.repository)`,
      `${cli} imports apps/session-service's code (../../session-service/src/journal/session-store)`,
      undefined,
      undefined,
    ]);
    const lib = join('libs', 'binding-core', 'src', 'inbound', 'x.ts');
    expect(violation(lib, '../../../protocol/src/limits')).toContain('not by @tollgate/<lib>');
    expect(violation(lib, '../../../../apps/slack-binding/src/main')).toContain(
      "imports apps/slack-binding's code",
    );
    const spec = join('libs', 'binding-core', 'src', 'inbound', 'x.spec.ts');
    expect(violation(spec, '../../../protocol/src/testing/message-fixtures')).toBeUndefined();
  });
});
