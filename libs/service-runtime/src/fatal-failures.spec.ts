import { FatalFailure, FatalFailures } from './fatal-failures';

describe('FatalFailures', () => {
  it('D5 hands a service’s fatal failure to the entry point, once, also one reported before it listened', () => {
    const failures = new FatalFailures();
    const lost = new Error('connection terminated');
    failures.report('lost the leader lock connection', lost);
    failures.report('a second failure on the way down', new Error('later'));
    const seen: FatalFailure[] = [];
    failures.onFatal((failure) => seen.push(failure));
    failures.report('after the handler: still the first only', new Error('later'));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(FatalFailure);
    expect(seen[0]).toMatchObject({ message: 'lost the leader lock connection', cause: lost });
  });

  it('D5 a failure reported after the entry point listens reaches it at once', () => {
    const failures = new FatalFailures();
    const seen: string[] = [];
    failures.onFatal((failure) => seen.push(failure.message));
    expect(seen).toEqual([]);
    failures.report('lost the leader lock connection', new Error('x'));
    expect(seen).toEqual(['lost the leader lock connection']);
  });
});
