import { stringify } from 'node:querystring';
import { formFields } from './slack-form-fields';

describe('D6 formFields: a Slack call’s fields as its form carries them', () => {
  const fields = {
    channel: 'C1',
    ts: '1.2',
    text: 'Approve? é ✓',
    unfurl_links: false,
    reply_broadcast: 0,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Write* "a" \\ b' } }],
    metadata: { event_type: 'tollgate_prompt', event_payload: { promptRef: 'p1' } },
    file: Buffer.from('bytes'),
  };

  it('D6 writes objects and arrays as their JSON text and keeps every other value as it is', () => {
    const form = formFields(fields);
    expect(form).toEqual({
      ...fields,
      blocks: JSON.stringify(fields.blocks),
      metadata: JSON.stringify(fields.metadata),
    });
    expect(form.file).toBe(fields.file);
    expect(fields.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*Write* "a" \\ b' } },
    ]);
  });

  it('D6 the form the SDK then encodes is byte for byte the one it encodes from the fields', () => {
    // As WebClient's serializeBody: non-primitive values to JSON, then querystring.
    const asTheSdkDoes = (data: Record<string, unknown>) =>
      stringify(
        Object.fromEntries(
          Object.entries(data)
            .filter(([key]) => key !== 'file')
            .map(([key, value]) => [
              key,
              typeof value === 'object' && value !== null ? JSON.stringify(value) : value,
            ]),
        ) as Record<string, string>,
      );
    expect(asTheSdkDoes(formFields(fields))).toBe(asTheSdkDoes(fields));
  });
});
