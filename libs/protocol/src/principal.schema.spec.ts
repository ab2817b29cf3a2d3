import { principalOf } from './principal.schema';

describe('principalOf', () => {
  it('reads an absent principal as user', () => {
    expect(principalOf({})).toBe('user');
  });

  it('keeps automation', () => {
    expect(principalOf({ principal: 'automation' })).toBe('automation');
  });
});
