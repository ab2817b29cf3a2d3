import { echoTool } from './echo.tool';
import { builtInTools } from './tool-registry';
import { writeNoteTool } from './write-note.tool';

describe('built-in tool registry', () => {
  const tools = builtInTools();

  it('holds echo, write_note and delegate', () => {
    expect(tools.list().map((t) => t.name)).toEqual(['echo', 'write_note', 'delegate']);
    expect(tools.get('echo')).toBe(echoTool);
    expect(tools.get('write_note')).toBe(writeNoteTool);
  });

  it('has no tool by an unknown name', () => {
    expect(tools.get('nope')).toBeUndefined();
  });
});
