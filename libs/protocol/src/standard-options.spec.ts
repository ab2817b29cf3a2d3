import { optionSchema } from './option.schema';
import { STANDARD_OPTIONS, standardOptions } from './standard-options';

describe('STANDARD_OPTIONS', () => {
  it('holds the labels and styles of docs/protocol.md §3', () => {
    expect(STANDARD_OPTIONS).toEqual({
      approve_once: { key: 'approve_once', label: 'Approve once', style: 'primary' },
      approve_session: { key: 'approve_session', label: 'Allow in this chat', style: 'default' },
      approve_always: { key: 'approve_always', label: 'Always allow', style: 'default' },
      deny: { key: 'deny', label: 'Deny', style: 'danger' },
    });
  });

  it('passes its own schema', () => {
    for (const option of Object.values(STANDARD_OPTIONS)) {
      expect(optionSchema.safeParse(option).success).toBe(true);
    }
  });

  it('cannot be changed by a caller', () => {
    expect(() => {
      (STANDARD_OPTIONS.deny as { label: string }).label = 'Nope';
    }).toThrow(TypeError);
  });
});

describe('standardOptions', () => {
  it('lists the offered options in the canonical order', () => {
    expect(standardOptions(['deny', 'approve_once']).map((option) => option.key)).toEqual([
      'approve_once',
      'deny',
    ]);
  });

  it('offers all four by default, as copies', () => {
    const options = standardOptions();

    expect(options).toHaveLength(4);
    expect(options[0]).not.toBe(STANDARD_OPTIONS.approve_once);
  });
});
