import { AuditLog1796256000000, AuditSealedLater1796430000000 } from '@tollgate/audit';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PromptTimers1796122000000 } from './prompt-timers.migration';
import { CommandLedgerPlatform1764806400000 } from './command-ledger-platform.migration';
import { OutboxTraceparent1796287700000 } from './outbox-traceparent.migration';

/**
 * The session journal, its outbox, the durable command ledger and the pending-approvals
 * projection. Tables are unqualified: the data source's search_path is the service schema.
 */
export class SessionJournal1764460800000 implements MigrationInterface {
  name = 'SessionJournal1764460800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE session_events (
        session_id  text        NOT NULL,
        seq         integer     NOT NULL CHECK (seq >= 1),
        type        text        NOT NULL,
        data        jsonb       NOT NULL,
        occurred_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`);
    // Payloads are kept as the exact text published, so a retried publish sends the same bytes.
    await runner.query(`
      CREATE TABLE outbox (
        position   bigserial   PRIMARY KEY,
        id         text        NOT NULL UNIQUE,
        session_id text        NOT NULL,
        subject    text        NOT NULL,
        payload    text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at    timestamptz
      )`);
    await runner.query(`CREATE INDEX outbox_unsent ON outbox (position) WHERE sent_at IS NULL`);
    await runner.query(`
      CREATE TABLE processed_commands (
        command_id   text        PRIMARY KEY,
        session_id   text        NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX processed_commands_age ON processed_commands (processed_at)`);
    await runner.query(`
      CREATE TABLE pending_approvals (
        session_id    text    NOT NULL,
        call_id       text    NOT NULL,
        requested_seq integer NOT NULL,
        PRIMARY KEY (session_id, call_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE pending_approvals`);
    await runner.query(`DROP TABLE processed_commands`);
    await runner.query(`DROP TABLE outbox`);
    await runner.query(`DROP TABLE session_events`);
  }
}

/**
 * Sessions whose turn was mid-flight (a tool started) at their last commit. A normal command
 * ends parked or idle and removes its row; a row left behind means the process died while a
 * tool ran, and recovery must settle that turn.
 */
export class SessionsInFlight1764547200000 implements MigrationInterface {
  name = 'SessionsInFlight1764547200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE sessions_in_flight (session_id text PRIMARY KEY)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE sessions_in_flight`);
  }
}

/**
 * What keeps a decision cheap however long the session (S16) and turns off the JetStream
 * message (S14, S15):
 * - `session_state`: the state the journal replays to, rewritten in the transaction that
 *   appends the events, so a load reads one row plus the events after it. A cache: a row of
 *   another format is ignored and the journal replayed.
 * - `session_inbox`: a command that arrived while its session was busy, kept until its turn
 *   comes, so its message is acked at once and nothing is lost in a crash.
 * - `settled_calls`: whether each call of an earlier batch was answered, read for the call a
 *   click names, so the state row stays the same size however long the session runs.
 * - `quarantined_sessions`: sessions whose journal cannot be replayed; they take no commands.
 */
export class SessionEngine1796000000000 implements MigrationInterface {
  name = 'SessionEngine1796000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE session_state (
        session_id text        PRIMARY KEY,
        version    integer     NOT NULL,
        format     integer     NOT NULL,
        state      jsonb       NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE session_inbox (
        position    bigserial   PRIMARY KEY,
        session_id  text        NOT NULL,
        command_id  text        NOT NULL,
        command     jsonb       NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (session_id, command_id)
      )`);
    // A call of an earlier batch: was it answered? Kept out of the state row, which would
    // otherwise grow with every call the session ever made.
    await runner.query(`
      CREATE TABLE settled_calls (
        session_id text    NOT NULL,
        call_id    text    NOT NULL,
        answered   boolean NOT NULL,
        PRIMARY KEY (session_id, call_id)
      )`);
    await runner.query(`
      CREATE TABLE quarantined_sessions (
        session_id     text        PRIMARY KEY,
        reason         text        NOT NULL,
        quarantined_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE quarantined_sessions`);
    await runner.query(`DROP TABLE settled_calls`);
    await runner.query(`DROP TABLE session_inbox`);
    await runner.query(`DROP TABLE session_state`);
  }
}

export const SESSION_SERVICE_MIGRATIONS = [
  SessionJournal1764460800000,
  SessionsInFlight1764547200000,
  CommandLedgerPlatform1764806400000,
  SessionEngine1796000000000,
  PromptTimers1796122000000,
  // G4: every commit of the store appends to the audit trail, so it is part of the journal.
  AuditLog1796256000000,
  // D7: the outbox writer stores each row's traceparent, so it is part of the journal too.
  OutboxTraceparent1796287700000,
  // G4: a commit inserts its audit entries unchained and the sealer links them later, so the
  // journal's own insert needs the columns the sealer fills to be nullable.
  AuditSealedLater1796430000000,
];
