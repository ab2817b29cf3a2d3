import { validateSchemaName } from './schema-name.validator';

describe('validateSchemaName', () => {
  it.each(['session_service', 'slack_binding', '_private', 'a', 'x'.repeat(63)])(
    'accepts %s',
    (raw) => {
      expect(validateSchemaName(raw)).toEqual({ ok: true, schema: raw });
    },
  );

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Session_Service', 'invalid'],
    ['session-service', 'invalid'],
    ['1st', 'invalid'],
    ['a'.repeat(64), 'invalid'],
    ['tollgate"; drop schema public; --', 'invalid'],
    ['pg_temp_1', 'reserved'],
  ])('refuses %j', (raw, code) => {
    expect(validateSchemaName(raw)).toMatchObject({ ok: false, code });
  });
});
