import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * Idempotency keys of POST requests (issue 14): a row claims (caller, key) before the work runs,
 * and keeps the first answer for 24 hours. The unique index decides between racing requests on
 * every instance (and every node of a Galera cluster); `locked_until` (epoch ms) is the lease of
 * a claim whose request is still running, so that the claim of a crashed instance expires.
 */
export class CreateIdempotencyKeys1764600000001 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1764600000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    // Keys are compared byte for byte (a case-insensitive collation would make `a` and `A` one key).
    const binary = c.mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          c.id(),
          { ...c.string('scope', 64), ...binary },
          { ...c.string('idempotency_key', 255), ...binary },
          c.char('request_hash', 64),
          c.char('owner', 32),
          { name: 'status_code', type: c.mysql ? 'int' : 'integer', isNullable: true },
          c.longText('response_body', true),
          c.bigint('locked_until', true),
          c.bigint('expires_at'),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'idempotency_keys_scope_key_unique', columnNames: ['scope', 'idempotency_key'] }],
        indices: [{ name: 'idempotency_keys_expires_at_index', columnNames: ['expires_at'] }],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_keys', true);
  }
}
