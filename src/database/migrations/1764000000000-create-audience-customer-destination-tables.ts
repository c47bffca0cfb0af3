import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';
import { foreignKey, listIndexes } from '../schema-keys.js';

/** Audiences and their rules, sub-audiences, customers, destinations and the campaign associations. */
export class CreateAudienceCustomerDestinationTables1764000000000 implements MigrationInterface {
  name = 'CreateAudienceCustomerDestinationTables1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    const create = (table: Table) => queryRunner.createTable(table, false, true, true);

    await create(
      new Table({
        name: 'audiences',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('name'),
          c.mediumText('description', true),
          ...c.timestamps(),
        ],
        indices: listIndexes('audiences', ['tenant_id'], ['name', 'created_at']),
        foreignKeys: [foreignKey('audiences', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );
    await create(
      new Table({
        name: 'audience_rules',
        columns: [c.id(), c.bigint('audience_id'), c.string('rule_type'), c.string('rule_value'), ...c.timestamps()],
        indices: [{ name: 'audience_rules_audience_id_index', columnNames: ['audience_id', 'id'] }],
        foreignKeys: [foreignKey('audience_rules', 'audience_id', 'audiences', 'CASCADE')],
      }),
    );
    await create(
      new Table({
        name: 'sub_audiences',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.bigint('audience_id'),
          c.string('name'),
          c.mediumText('description', true),
          c.mediumText('segment_definition'),
          ...c.timestamps(),
        ],
        indices: [
          ...listIndexes('sub_audiences', ['tenant_id', 'campaign_id'], ['name', 'created_at']),
          { name: 'sub_audiences_campaign_index', columnNames: ['campaign_id'] },
          { name: 'sub_audiences_audience_index', columnNames: ['audience_id'] },
        ],
        foreignKeys: [
          foreignKey('sub_audiences', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('sub_audiences', 'campaign_id', 'campaigns', 'CASCADE'),
          foreignKey('sub_audiences', 'audience_id', 'audiences', 'RESTRICT'),
        ],
      }),
    );
    await create(
      new Table({
        name: 'campaign_audiences',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.bigint('audience_id'),
          c.mediumText('segment_override', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'campaign_audiences_campaign_audience_unique', columnNames: ['campaign_id', 'audience_id'] }],
        indices: [
          ...listIndexes('campaign_audiences', ['tenant_id', 'campaign_id'], ['created_at']),
          { name: 'campaign_audiences_audience_index', columnNames: ['audience_id'] },
        ],
        foreignKeys: [
          foreignKey('campaign_audiences', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('campaign_audiences', 'campaign_id', 'campaigns', 'CASCADE'),
          foreignKey('campaign_audiences', 'audience_id', 'audiences', 'RESTRICT'),
        ],
      }),
    );

    await create(
      new Table({
        name: 'customers',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('external_id', 255, true),
          c.string('first_name', 255, true),
          c.string('last_name', 255, true),
          c.string('email', 255, true),
          c.string('phone', 255, true),
          c.mediumText('attributes', true),
          c.boolean('is_active', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'customers_external_id_unique', columnNames: ['tenant_id', 'external_id'] }],
        indices: [
          ...listIndexes('customers', ['tenant_id'], ['last_name', 'email', 'created_at']),
          { name: 'customers_email_index', columnNames: ['tenant_id', 'email', 'id'] },
          { name: 'customers_active_index', columnNames: ['tenant_id', 'is_active', 'id'] },
        ],
        foreignKeys: [foreignKey('customers', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );

    await create(
      new Table({
        name: 'destinations',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('name'),
          c.mediumText('description', true),
          c.string('destination_type'),
          c.mediumText('connection_details'),
          c.boolean('is_active', true),
          ...c.timestamps(),
        ],
        indices: [
          ...listIndexes('destinations', ['tenant_id'], ['name', 'created_at']),
          { name: 'destinations_active_index', columnNames: ['tenant_id', 'is_active', 'id'] },
        ],
        foreignKeys: [foreignKey('destinations', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );
    await create(
      new Table({
        name: 'campaign_destinations',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.bigint('destination_id'),
          c.bigint('treatment_group_id', true),
          c.mediumText('attribute_mapping'),
          c.boolean('is_active', true),
          ...c.timestamps(),
        ],
        indices: [
          ...listIndexes('campaign_destinations', ['tenant_id', 'campaign_id'], ['created_at']),
          { name: 'campaign_destinations_destination_index', columnNames: ['destination_id'] },
          { name: 'campaign_destinations_treatment_group_index', columnNames: ['treatment_group_id'] },
        ],
        foreignKeys: [
          foreignKey('campaign_destinations', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('campaign_destinations', 'campaign_id', 'campaigns', 'CASCADE'),
          foreignKey('campaign_destinations', 'destination_id', 'destinations', 'RESTRICT'),
          foreignKey('campaign_destinations', 'treatment_group_id', 'treatment_groups', 'SET NULL'),
        ],
      }),
    );

    await create(
      new Table({
        name: 'campaign_validation_rules',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.bigint('validation_rule_id'),
          c.mediumText('rule_override', true),
          ...c.timestamps(),
        ],
        uniques: [
          {
            name: 'campaign_validation_rules_campaign_rule_unique',
            columnNames: ['campaign_id', 'validation_rule_id'],
          },
        ],
        indices: [
          ...listIndexes('campaign_validation_rules', ['tenant_id', 'campaign_id'], ['created_at']),
          { name: 'campaign_validation_rules_rule_index', columnNames: ['validation_rule_id'] },
        ],
        foreignKeys: [
          foreignKey('campaign_validation_rules', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('campaign_validation_rules', 'campaign_id', 'campaigns', 'CASCADE'),
          foreignKey('campaign_validation_rules', 'validation_rule_id', 'validation_rules', 'RESTRICT'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'campaign_validation_rules',
      'campaign_destinations',
      'destinations',
      'customers',
      'campaign_audiences',
      'sub_audiences',
      'audience_rules',
      'audiences',
    ]) {
      await queryRunner.dropTable(table, true);
    }
  }
}
