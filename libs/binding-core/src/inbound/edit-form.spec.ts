import { aRequest } from '../../../protocol/src/testing/message-fixtures';
import { editFormOf } from './edit-form';

describe('G2 editFormOf', () => {
  it('G2 one field per editable argument: its value as text, its constraint in words', () => {
    const request = aRequest({
      editable: [
        { name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } },
        { name: 'limit', value: 10, constraint: { max: 10 } },
        { name: 'tags', value: ['a', 'b'], constraint: { subsetOf: ['a', 'b'] } },
      ],
    });
    expect(editFormOf(request, 'ref1')).toEqual({
      promptRef: 'ref1',
      toolName: request.toolName,
      fields: [
        {
          name: 'path',
          label: 'path',
          value: '/srv/a',
          hint: 'Must be under /srv/a',
          multiline: false,
        },
        {
          name: 'limit',
          label: 'limit',
          value: '10',
          hint: 'Must be at most 10',
          multiline: false,
        },
        {
          name: 'tags',
          label: 'tags',
          value: 'a\nb',
          hint: 'Must be within a, b',
          multiline: true,
        },
      ],
    });
  });

  it('G2 a prompt without editable arguments has no form', () => {
    expect(editFormOf(aRequest(), 'ref1')).toBeUndefined();
  });
});
