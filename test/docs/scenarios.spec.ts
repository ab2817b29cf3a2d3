import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listedScenarios, testedIds, testsById } from './scenario-index';

const root = join(__dirname, '..', '..');
const listed = listedScenarios(readFileSync(join(root, 'docs', 'scenarios.md'), 'utf8'));
const tested = testsById(root);

/** docs/scenarios.md is the list of behaviour every release must show; tests carry its ids. */
describe('docs/scenarios.md and the tests agree', () => {
  it('lists each scenario once', () => {
    const ids = listed.map((s) => s.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('every listed scenario has a test carrying its id, in each file the entry names', () => {
    const untested = listed.filter((s) => !tested.has(s.id)).map((s) => s.id);
    expect(untested).toEqual([]);
    const wrongFiles = listed.flatMap((s) =>
      s.files.filter((file) => !tested.get(s.id)?.has(file)).map((file) => `${s.id} ${file}`),
    );
    expect(wrongFiles).toEqual([]);
    expect(listed.filter((s) => s.files.length === 0).map((s) => s.id)).toEqual([]);
  });

  it('every id a test carries is listed', () => {
    const known = new Set(listed.map((s) => s.id));
    expect([...tested.keys()].filter((id) => !known.has(id)).sort()).toEqual([]);
  });

  it('finds ids in the shapes test titles take, and nothing else', () => {
    // Built from parts, so this file's own source carries none of these ids.
    const q = "'";
    const source = [
      `it(${q}S1 a gated call${q}, () => {});`,
      `describe(${q}X2 — grants${q}, () => {});`,
      `it.each([['a', 'b']] as const)(\n  ${q}B4 %s edits once${q},`,
      `it(${q}not a scenario S1${q}, () => {});`,
      `fn(${q}Z1 not a family${q});`,
    ].join('\n');
    expect([...testedIds(source)].sort()).toEqual(['B4', 'S1', 'X2']);
  });
});
