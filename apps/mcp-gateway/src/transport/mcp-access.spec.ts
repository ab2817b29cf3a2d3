import { isLoopbackHost } from '../gateway.config';
import { McpAccess } from './mcp-access';

describe('M10 — McpAccess and loopback hosts', () => {
  it('M10 without a token lets every request through (the config allows that on loopback only)', () => {
    expect(new McpAccess(undefined).refusal({})).toBeUndefined();
  });

  it('M10 with a token needs exactly it as a bearer, naming what is wrong', () => {
    const access = new McpAccess('s3cret-token-of-24-chars!');
    expect(access.refusal({})).toBe('mcp_token_required');
    expect(access.refusal({ authorization: 'Basic abc' })).toBe('mcp_token_required');
    expect(access.refusal({ authorization: 'Bearer s3cret' })).toBe('bad_mcp_token');
    expect(access.refusal({ authorization: 'Bearer s3cret-token-of-24-chars!' })).toBeUndefined();
    expect(access.refusal({ authorization: 'bearer s3cret-token-of-24-chars!' })).toBeUndefined();
  });

  it('M10 knows the loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'gateway.example', '128.0.0.1']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});
