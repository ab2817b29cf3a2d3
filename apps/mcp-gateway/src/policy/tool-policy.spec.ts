import { type GatewayPolicy, verdictFor } from './tool-policy';

describe('M2 — verdictFor', () => {
  const policy: GatewayPolicy = {
    default: 'ask',
    readOnly: 'allow',
    tools: { fs__write_file: 'ask', fs__move_file: 'deny', fs__read_secret: 'ask' },
  };

  it('takes a per-tool entry over everything else', () => {
    expect(verdictFor(policy, 'fs__move_file', undefined)).toBe('deny');
    expect(verdictFor(policy, 'fs__read_secret', { readOnlyHint: true })).toBe('ask');
  });

  it('lets read-only tools take the readOnly verdict', () => {
    expect(verdictFor(policy, 'fs__read_text_file', { readOnlyHint: true })).toBe('allow');
  });

  it('gives every other tool the default, a read-only one too when readOnly is unset', () => {
    expect(verdictFor(policy, 'fs__create_directory', { readOnlyHint: false })).toBe('ask');
    expect(verdictFor(policy, 'fs__list_directory', undefined)).toBe('ask');
    expect(verdictFor({ default: 'deny', tools: {} }, 'fs__read', { readOnlyHint: true })).toBe(
      'deny',
    );
  });
});
