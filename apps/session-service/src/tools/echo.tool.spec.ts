import { echoTool } from './echo.tool';
import { ToolArgumentError } from './tool';

describe('echo tool', () => {
  it('returns its text argument and stores nothing', async () => {
    await expect(echoTool.run({ text: 'hi' }, { noteCount: 1 })).resolves.toEqual({
      result: 'hi',
    });
  });

  it('refuses arguments without a string text', async () => {
    await expect(echoTool.run({ text: 3 }, { noteCount: 0 })).rejects.toThrow(ToolArgumentError);
    await expect(echoTool.run({}, { noteCount: 0 })).rejects.toThrow(/string `text`/);
  });

  it('describes the call for the approver', () => {
    expect(echoTool.describe({ text: 'hi' })).toBe('echo "hi"');
  });
});
