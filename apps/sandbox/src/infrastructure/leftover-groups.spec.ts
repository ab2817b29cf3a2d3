import { type GroupRecord, leftoverVerdicts, type ProcessSeen } from './leftover-groups';

const NATS: GroupRecord = {
  name: 'nats-server',
  pgid: 4100,
  argv: ['/usr/sbin/nats-server', '-c', '/s/.tollgate/nats-server.conf', '-p', '40001', '-js'],
  signal: 'SIGTERM',
};
const POSTGRES: GroupRecord = {
  name: 'PostgreSQL',
  pgid: 4200,
  argv: ['/n/bin/postgres', '-D', '/s/.tollgate/pg', '-p', '40002'],
  signal: 'SIGINT',
};

const seen = (entries: [number, ProcessSeen][]) => new Map(entries);

describe('D8 — what the next npm start does with process groups a killed one left', () => {
  it('D8 reaps a recorded group whose leader is still the program started, arguments and all', () => {
    const verdicts = leftoverVerdicts(
      [NATS, POSTGRES],
      seen([
        [4100, { argv: NATS.argv, pgid: 4100, zombie: false }],
        [4200, { argv: POSTGRES.argv, pgid: 4200, zombie: false }],
      ]),
    );
    expect(verdicts.map((v) => [v.record.name, v.action])).toEqual([
      ['nats-server', 'reap'],
      ['PostgreSQL', 'reap'],
    ]);
  });

  it('D8 a recorded pid with no process, or only a zombie, is gone: nothing to signal', () => {
    const verdicts = leftoverVerdicts(
      [NATS, POSTGRES],
      seen([[4200, { argv: [], pgid: 4200, zombie: true }]]),
    );
    expect(verdicts.map((v) => v.action)).toEqual(['gone', 'gone']);
  });

  it('D8 never touches a process that reused the pid: another program, other arguments, or another group', () => {
    const others: ProcessSeen[] = [
      { argv: ['/usr/bin/vim', 'notes.txt'], pgid: 4100, zombie: false },
      // The same binary for someone else's data: not ours.
      { argv: [...NATS.argv.slice(0, -2), '-p', '4222'], pgid: 4100, zombie: false },
      { argv: [...NATS.argv, '-DV'], pgid: 4100, zombie: false },
      { argv: NATS.argv.slice(0, 1), pgid: 4100, zombie: false },
      // Same command line, but not the leader of the group it was started as.
      { argv: NATS.argv, pgid: 999, zombie: false },
    ];
    for (const other of others) {
      expect(leftoverVerdicts([NATS], seen([[4100, other]]))).toEqual([
        { record: NATS, action: 'leave', seen: other },
      ]);
    }
  });

  it('D8 no records, nothing to do', () => {
    expect(
      leftoverVerdicts([], seen([[4100, { argv: NATS.argv, pgid: 4100, zombie: false }]])),
    ).toEqual([]);
  });
});
