import { classifyDatabaseError } from './database-error.classifier';

function pgError(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyDatabaseError', () => {
  it.each([
    ['22P05', 'unsupported Unicode escape sequence'],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['22P02', 'invalid input syntax for type json'],
    ['23502', 'null value in column violates not-null constraint'],
    ['23503', 'foreign key violation'],
    ['42P01', 'relation does not exist'],
    ['42601', 'syntax error'],
    ['54000', 'program limit exceeded'],
    ['0A000', 'feature not supported'],
    ['21000', 'cardinality violation'],
  ])('calls %s permanent', (code, message) => {
    expect(classifyDatabaseError(pgError(code, message))).toEqual({
      kind: 'permanent',
      sqlState: code,
      reason: `database_permanent: ${code} ${message}`,
    });
  });

  it.each([
    '08006',
    '08001',
    '40001',
    '40P01',
    '57P01',
    '57014',
    '53300',
    '55P03',
    '58030',
    'XX000',
  ])('calls %s transient', (code) => {
    expect(classifyDatabaseError(pgError(code))?.kind).toBe('transient');
  });

  it('finds the SQLSTATE inside a TypeORM QueryFailedError and along causes', () => {
    const typeorm = Object.assign(new Error('query failed'), { driverError: pgError('22P05') });
    expect(classifyDatabaseError(typeorm)?.kind).toBe('permanent');
    const wrapped = new Error('outer', { cause: typeorm });
    expect(classifyDatabaseError(wrapped)?.sqlState).toBe('22P05');
  });

  it('leaves errors without a SQLSTATE unclassified (Node socket codes included)', () => {
    expect(classifyDatabaseError(new Error('Connection terminated unexpectedly'))).toBeUndefined();
    expect(classifyDatabaseError(pgError('ECONNREFUSED'))).toBeUndefined();
    expect(classifyDatabaseError(pgError('EPIPE'))).toBeUndefined();
    expect(classifyDatabaseError('nope')).toBeUndefined();
  });

  it('keeps the reason on one line', () => {
    expect(classifyDatabaseError(pgError('22P02', 'bad\ninput'))?.reason).toBe(
      'database_permanent: 22P02 bad input',
    );
  });
});
