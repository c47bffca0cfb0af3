import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * `users.access_version` grows whenever the user's roles or permissions change. The request's
 * token query reads it, so a process may cache the user's permissions under (user, version) and
 * still never serve a stale answer (docs/performance.md).
 */
export class AddUsersAccessVersion1764200000000 implements MigrationInterface {
  name = 'AddUsersAccessVersion1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumn(
      'users',
      new TableColumn({ name: 'access_version', type: mysql ? 'int' : 'integer', unsigned: mysql, default: 0 }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('users', 'access_version');
  }
}
