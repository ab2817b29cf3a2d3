import { ToolArgumentError } from './tool';
import { writeNoteTool } from './write-note.tool';

describe('write_note tool', () => {
  it('given no notes, stores its text and answers 1', async () => {
    await expect(writeNoteTool.run({ text: 'x' }, { noteCount: 0 })).resolves.toEqual({
      result: '1',
      note: 'x',
    });
  });

  it('given two notes, answers 3 as a decimal', async () => {
    await expect(writeNoteTool.run({ text: 'z' }, { noteCount: 2 })).resolves.toEqual({
      result: '3',
      note: 'z',
    });
  });

  it('refuses arguments without a string text', async () => {
    await expect(writeNoteTool.run({ note: 'x' }, { noteCount: 0 })).rejects.toThrow(
      ToolArgumentError,
    );
  });

  it('shows the approver the text it will store', () => {
    expect(writeNoteTool.describe({ text: 'buy milk' })).toBe('Write a note: "buy milk"');
  });
});
