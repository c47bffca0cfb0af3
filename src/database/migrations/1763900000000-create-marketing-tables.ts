import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';
import { foreignKey, listIndexes } from '../schema-keys.js';

const PLAN_SORTS = ['name', 'created_at', 'start_date', 'end_date', 'budget'];

/** Marketing programs, campaign groups, campaigns, treatment groups, KPIs, customer goals, validation rules. */
export class CreateMarketingTables1763900000000 implements MigrationInterface {
  name = 'CreateMarketingTables1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    const create = (table: Table) => queryRunner.createTable(table, false, true, true);
    const plan = (descriptionNullable: boolean) => [
      c.string('name'),
      c.mediumText('description', descriptionNullable),
      c.string('status', 16),
      c.datetime('start_date'),
      c.datetime('end_date'),
      c.decimal('budget', 15, 2),
      c.string('goal'),
    ];

    await create(
      new Table({
        name: 'validation_rules',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('name'),
          c.mediumText('description', true),
          c.mediumText('rule_definition'),
          c.boolean('is_active', true),
          ...c.timestamps(),
          c.timestamp('deleted_at'),
        ],
        indices: listIndexes('validation_rules', ['tenant_id'], ['name', 'created_at']),
        foreignKeys: [foreignKey('validation_rules', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );

    await create(
      new Table({
        name: 'marketing_programs',
        columns: [c.id(), c.bigint('tenant_id'), ...plan(false), ...c.timestamps()],
        indices: [
          ...listIndexes('marketing_programs', ['tenant_id'], PLAN_SORTS),
          { name: 'marketing_programs_status_index', columnNames: ['tenant_id', 'status', 'id'] },
        ],
        foreignKeys: [foreignKey('marketing_programs', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );

    await create(
      new Table({
        name: 'campaign_groups',
        columns: [c.id(), c.bigint('tenant_id'), c.bigint('marketing_program_id'), ...plan(false), ...c.timestamps()],
        indices: [
          ...listIndexes('campaign_groups', ['tenant_id', 'marketing_program_id'], PLAN_SORTS),
          { name: 'campaign_groups_status_index', columnNames: ['tenant_id', 'marketing_program_id', 'status', 'id'] },
          { name: 'campaign_groups_program_index', columnNames: ['marketing_program_id'] },
        ],
        foreignKeys: [
          foreignKey('campaign_groups', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('campaign_groups', 'marketing_program_id', 'marketing_programs', 'RESTRICT'),
        ],
      }),
    );

    await create(
      new Table({
        name: 'campaigns',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_group_id'),
          ...plan(true),
          c.mediumText('target_audience', true),
          c.mediumText('success_criteria', true),
          ...c.timestamps(),
        ],
        indices: [
          ...listIndexes('campaigns', ['tenant_id', 'campaign_group_id'], PLAN_SORTS),
          { name: 'campaigns_status_index', columnNames: ['tenant_id', 'campaign_group_id', 'status', 'id'] },
          { name: 'campaigns_group_index', columnNames: ['campaign_group_id'] },
        ],
        foreignKeys: [
          foreignKey('campaigns', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('campaigns', 'campaign_group_id', 'campaign_groups', 'RESTRICT'),
        ],
      }),
    );

    const campaignChild = (name: string, columns: ReturnType<typeof c.string>[]) =>
      create(
        new Table({
          name,
          columns: [c.id(), c.bigint('tenant_id'), c.bigint('campaign_id'), ...columns, ...c.timestamps()],
          indices: [
            ...listIndexes(name, ['tenant_id', 'campaign_id'], ['name', 'created_at']),
            { name: `${name}_campaign_index`, columnNames: ['campaign_id'] },
          ],
          foreignKeys: [
            foreignKey(name, 'tenant_id', 'tenants', 'RESTRICT'),
            foreignKey(name, 'campaign_id', 'campaigns', 'CASCADE'),
          ],
        }),
      );

    await campaignChild('treatment_groups', [
      c.string('name'),
      c.mediumText('description', true),
      c.string('type'),
      c.decimal('allocation_percentage', 5, 2),
    ]);
    await campaignChild('campaign_kpis', [
      c.string('name'),
      c.mediumText('description', true),
      c.string('kpi_type'),
      c.decimal('target_value', 15, 2),
      c.decimal('actual_value', 15, 2, true),
    ]);
    await campaignChild('customer_goals', [
      c.string('name'),
      c.mediumText('description', true),
      c.string('goal_type'),
      c.decimal('target_value', 15, 2),
      c.bigint('validation_rule_id', true),
    ]);
    await queryRunner.createForeignKey(
      'customer_goals',
      new TableForeignKey({
        name: 'customer_goals_validation_rule_id_foreign',
        columnNames: ['validation_rule_id'],
        referencedTableName: 'validation_rules',
        referencedColumnNames: ['id'],
        onDelete: 'SET NULL',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'customer_goals',
      'campaign_kpis',
      'treatment_groups',
      'campaigns',
      'campaign_groups',
      'marketing_programs',
      'validation_rules',
    ]) {
      await queryRunner.dropTable(table, true);
    }
  }
}
