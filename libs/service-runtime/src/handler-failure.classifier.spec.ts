import { PermanentFailure, TransientFailure } from '@tollgate/messaging';
import { classifyHandlerFailure } from './handler-failure.classifier';

const pgError = (code: string) => Object.assign(new Error('refused'), { code });

describe('classifyHandlerFailure', () => {
  it('X8 dead-letters a statement PostgreSQL refuses every time and retries a lost connection', () => {
    const refused = classifyHandlerFailure(pgError('22P05'));
    expect(refused).toBeInstanceOf(PermanentFailure);
    expect((refused as PermanentFailure).reason).toBe('database_permanent: 22P05 refused');
    const lost = classifyHandlerFailure(pgError('57P01'));
    expect(lost).toBeInstanceOf(TransientFailure);
  });

  it('trusts a handler that chose, and leaves other errors to the runner', () => {
    const chosen = new TransientFailure('rate_limited');
    expect(classifyHandlerFailure(chosen)).toBe(chosen);
    const other = new Error('socket hang up');
    expect(classifyHandlerFailure(other)).toBe(other);
  });
});
