import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * Evaluable audience rules (issue 13): a rule may name a customer `field` and an `operator`
 * (both null on a descriptive rule), and an audience matches `all` or `any` of its rules.
 * `match` is a reserved word in MySQL: raw SQL must quote it.
 */
export class AddAudienceRuleFields1764400000000 implements MigrationInterface {
  name = 'AddAudienceRuleFields1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.addColumns('audience_rules', [
      new TableColumn(c.string('field', 255, true)),
      new TableColumn(c.string('operator', 32, true)),
    ]);
    await queryRunner.addColumn('audiences', new TableColumn({ ...c.string('match', 8), default: "'all'" }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audiences', 'match');
    await queryRunner.dropColumns('audience_rules', ['field', 'operator']);
  }
}
