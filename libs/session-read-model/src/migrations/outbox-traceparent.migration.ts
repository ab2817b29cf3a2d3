import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D7: the W3C `traceparent` of the decision that queued an outbox row, so the relay's publish,
 * which happens later and elsewhere, continues the turn's trace. Null when tracing is off.
 */
export class OutboxTraceparent1796287700000 implements MigrationInterface {
  name = 'OutboxTraceparent1796287700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE outbox ADD COLUMN traceparent text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE outbox DROP COLUMN traceparent`);
  }
}
