import {
  Table,
  TableForeignKey,
  type MigrationInterface,
  type QueryRunner,
  type TableForeignKeyOptions,
} from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

const tenantKey = (table: string): TableForeignKeyOptions => ({
  name: `${table}_tenant_id_foreign`,
  columnNames: ['tenant_id'],
  referencedTableName: 'tenants',
  referencedColumnNames: ['id'],
  onDelete: 'RESTRICT',
});

const parentKey = (
  table: string,
  column: string,
  parent: string,
  onDelete: 'RESTRICT' | 'CASCADE' | 'SET NULL',
): TableForeignKeyOptions => ({
  name: `${table}_${column}_foreign`,
  columnNames: [column],
  referencedTableName: parent,
  referencedColumnNames: ['id'],
  onDelete,
});

/**
 * Every list reads `tenant_id [, parent] ` then walks `id` (or the sort column, then id), so each
 * list order has an index that starts with the tenant and the parent.
 */
const listIndexes = (table: string, scope: string[], sorts: string[]) => [
  { name: `${table}_list_id_index`, columnNames: [...scope, 'id'] },
  ...sorts.map((sort) => ({ name: `${table}_list_${sort}_index`, columnNames: [...scope, sort, 'id'] })),
];

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
        foreignKeys: [tenantKey('validation_rules')],
      }),
    );

    await create(
      new Table({
        name: 'marketing_programs',
        columns: [c.id(), c.bigint('tenant_id'), ...plan(false), ...c.timestamps()],
        indices: [
          ...listIndexes('marketing_programs', ['tenant_id'], ['name', 'created_at']),
          { name: 'marketing_programs_status_index', columnNames: ['tenant_id', 'status', 'id'] },
        ],
        foreignKeys: [tenantKey('marketing_programs')],
      }),
    );

    await create(
      new Table({
        name: 'campaign_groups',
        columns: [c.id(), c.bigint('tenant_id'), c.bigint('marketing_program_id'), ...plan(false), ...c.timestamps()],
        indices: [
          ...listIndexes('campaign_groups', ['tenant_id', 'marketing_program_id'], ['name', 'created_at']),
          { name: 'campaign_groups_status_index', columnNames: ['tenant_id', 'marketing_program_id', 'status', 'id'] },
          { name: 'campaign_groups_program_index', columnNames: ['marketing_program_id'] },
        ],
        foreignKeys: [
          tenantKey('campaign_groups'),
          parentKey('campaign_groups', 'marketing_program_id', 'marketing_programs', 'RESTRICT'),
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
          ...listIndexes('campaigns', ['tenant_id', 'campaign_group_id'], ['name', 'created_at']),
          { name: 'campaigns_status_index', columnNames: ['tenant_id', 'campaign_group_id', 'status', 'id'] },
          { name: 'campaigns_group_index', columnNames: ['campaign_group_id'] },
        ],
        foreignKeys: [
          tenantKey('campaigns'),
          parentKey('campaigns', 'campaign_group_id', 'campaign_groups', 'RESTRICT'),
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
          foreignKeys: [tenantKey(name), parentKey(name, 'campaign_id', 'campaigns', 'CASCADE')],
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
