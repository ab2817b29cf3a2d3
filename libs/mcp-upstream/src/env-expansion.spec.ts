import { parse } from 'yaml';
import { expandEnv, parseYamlKeepingReferences } from './env-expansion';

describe('M1 — expandEnv', () => {
  it('replaces ${VAR} in every string of a nested value and reports the values as secrets', () => {
    const result = expandEnv(
      { headers: { Authorization: 'Bearer ${TOKEN}' }, args: ['--root', '${ROOT}'], port: 1 },
      { TOKEN: 'abc', ROOT: '/srv' },
    );
    expect(result).toEqual({
      value: { headers: { Authorization: 'Bearer abc' }, args: ['--root', '/srv'], port: 1 },
      missing: [],
      secrets: ['abc', '/srv'],
    });
  });

  it('names unset and empty variables instead of expanding them to nothing silently', () => {
    expect(expandEnv('${A}-${B}-${A}', { B: '' }).missing).toEqual(['A', 'B']);
  });

  it('leaves text that only looks like a reference alone', () => {
    expect(expandEnv('$HOME ${1X} $${', {}).value).toBe('$HOME ${1X} $${');
  });

  it('M6 reads an unquoted ${VAR} in a flow map as a value, not as a nested map', () => {
    const text =
      'approvalApi: { url: http://h:3004, key: ${TOLLGATE_API_KEY} }\nh: "Bearer ${T}"\n';
    const parsed = parseYamlKeepingReferences(text, parse);
    expect(parsed).toEqual({
      approvalApi: { url: 'http://h:3004', key: '${TOLLGATE_API_KEY}' },
      h: 'Bearer ${T}',
    });
    expect(expandEnv(parsed, { TOLLGATE_API_KEY: 'a: {b}', T: 'x' }).value).toEqual({
      approvalApi: { url: 'http://h:3004', key: 'a: {b}' },
      h: 'Bearer x',
    });
  });
});
