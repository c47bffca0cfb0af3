/**
 * What `/api/db/schema` tells about each table: a display name and a description, plus
 * column overrides where the derived label (from the column name and type) is not enough.
 * Each feature adds its tables here as it adds their migration.
 */
export interface ColumnDescription {
  display_name?: string;
  app_type?: string;
  info?: string;
}

export interface TableDescription {
  display_name: string;
  app_type?: string;
  info: string;
  columns?: Record<string, ColumnDescription>;
}

export const TABLE_DESCRIPTIONS: Record<string, TableDescription> = {
  activity_log: {
    display_name: 'Activity Log',
    info: 'Audit trail: one entry per create, update or delete, with the acting user and the changed attributes.',
    columns: {
      subject_type: { info: 'Kind of record the entry is about.' },
      causer_id: { display_name: 'Causer', info: 'User who made the change.' },
      properties: { app_type: 'json', info: 'Changed attributes and their previous values.' },
      batch_uuid: { app_type: 'uuid' },
    },
  },
  column_metadata: {
    display_name: 'Column Metadata',
    info: 'Display names, application types and descriptions of table columns.',
  },
  failed_jobs: { display_name: 'Failed Jobs', info: 'Background jobs that failed, kept for inspection.' },
  migrations: { display_name: 'Migrations', info: 'Schema migrations already applied (owned by the migration tool).' },
  model_has_permissions: {
    display_name: 'User Permissions',
    info: 'Permissions granted directly to a user, beside those of the roles.',
  },
  model_has_roles: { display_name: 'User Roles', info: 'Roles assigned to users.' },
  password_reset_tokens: {
    display_name: 'Password Reset Tokens',
    info: 'Hashed single-use password reset tokens, valid for 60 minutes.',
    columns: {
      email: { app_type: 'email' },
      token: { app_type: 'secret', info: 'Hash of the token; the token itself is only mailed.' },
    },
  },
  permissions: { display_name: 'Permissions', info: 'Named abilities such as marketing.view or users.manage.' },
  personal_access_tokens: {
    display_name: 'Access Tokens',
    info: 'One row per login (device); the JWT names the row, which stores only a hash of the token.',
    columns: {
      name: { display_name: 'Device Name' },
      token: { app_type: 'secret', info: 'SHA-256 hash of the token id.' },
    },
  },
  role_has_permissions: { display_name: 'Role Permissions', info: 'Permissions granted by each role.' },
  roles: { display_name: 'Roles', info: 'Named sets of permissions: super-admin, admin, manager, viewer.' },
  table_metadata: {
    display_name: 'Table Metadata',
    info: 'Display names, application types and descriptions of tables.',
  },
  tenants: {
    display_name: 'Tenants',
    info: 'Organisations using the service; every user and every domain record belongs to one.',
  },
  users: {
    display_name: 'Users',
    info: 'People who sign in to the service, each in one tenant.',
    columns: {
      email: { display_name: 'E-mail', app_type: 'email' },
      password: { app_type: 'password', info: 'Password hash (bcrypt); never returned.' },
      remember_token: { app_type: 'secret' },
    },
  },
  marketing_programs: {
    display_name: 'Marketing Programs',
    info: 'Top level of the marketing plan; each contains campaign groups.',
    columns: { budget: { app_type: 'money' }, status: { app_type: 'enum', info: 'draft, active or inactive' } },
  },
  campaign_groups: {
    display_name: 'Campaign Groups',
    info: 'Groups of campaigns inside one marketing program.',
    columns: { budget: { app_type: 'money' }, status: { app_type: 'enum', info: 'draft, active or inactive' } },
  },
  campaigns: {
    display_name: 'Campaigns',
    info: 'Campaigns inside one campaign group, with their audiences, destinations, treatment groups, KPIs and goals.',
    columns: {
      budget: { app_type: 'money' },
      status: { app_type: 'enum', info: 'draft, active or inactive' },
      target_audience: { app_type: 'json' },
      success_criteria: { app_type: 'json' },
    },
  },
  treatment_groups: {
    display_name: 'Treatment Groups',
    info: "Splits of a campaign's audience; their allocation percentages add up to at most 100.",
    columns: { allocation_percentage: { app_type: 'percentage' } },
  },
  campaign_kpis: {
    display_name: 'Campaign KPIs',
    info: 'Key performance indicators of a campaign: target and actual values.',
  },
  customer_goals: {
    display_name: 'Customer Goals',
    info: 'Goals a customer should reach in a campaign, optionally checked by a validation rule.',
  },
  validation_rules: {
    display_name: 'Validation Rules',
    info: 'Rules (JSON definitions) that campaigns and customer goals use; soft-deleted.',
    columns: {
      rule_definition: { app_type: 'json' },
      deleted_at: { info: 'Set when the rule was deleted; such rules vanish from every read.' },
    },
  },
  audiences: { display_name: 'Audiences', info: 'Named audiences, each defined by a set of rules.' },
  audience_rules: { display_name: 'Audience Rules', info: 'The rules (type and value) that define an audience.' },
  sub_audiences: {
    display_name: 'Sub-audiences',
    info: 'Segments of an audience defined for one campaign.',
    columns: { segment_definition: { app_type: 'json' } },
  },
  campaign_audiences: {
    display_name: 'Campaign Audiences',
    info: 'Audiences a campaign targets, each with an optional segment override.',
    columns: { segment_override: { app_type: 'json' } },
  },
  customers: {
    display_name: 'Customers',
    info: 'Customer records of a tenant; external_id is unique within the tenant.',
    columns: { attributes: { app_type: 'json' }, phone: { app_type: 'phone' } },
  },
  customer_events: {
    display_name: 'Customer Events',
    info: 'What customers did (POST /api/track): one row per event, its message_id stored once per tenant.',
    columns: {
      name_id: { display_name: 'Event Name', info: 'The event name, as an id of customer_event_names.' },
      occurred_at: { display_name: 'Timestamp', app_type: 'epoch_ms', info: 'When it happened (epoch milliseconds).' },
      properties: { app_type: 'json' },
      created_at: { display_name: 'Received At' },
    },
  },
  customer_event_names: {
    display_name: 'Customer Event Names',
    info: "A tenant's event names, with the count of kept events and the newest one's timestamp.",
    columns: { last_seen_at: { app_type: 'epoch_ms', info: 'Newest kept event (epoch milliseconds).' } },
  },
  tenant_daily_usage: {
    display_name: 'Tenant Daily Usage',
    info: 'What a tenant used per UTC day of what its plan caps per day (tracked events).',
  },
  customer_imports: {
    display_name: 'Customer Imports',
    info: 'CSV import jobs of customers: file, status, progress and counts; claimed by one instance at a time.',
    columns: {
      batch_uuid: { app_type: 'uuid', info: "The job's own id: the batch_uuid of its activity-log entry." },
      file_path: { info: 'Where the upload is kept, relative to STORAGE_DIR (removed when the job ends).' },
      lease_owner: { info: 'The instance running the job.' },
      lease_expires_at: { app_type: 'epoch_ms', info: 'Until when the lease holds without a renewal.' },
    },
  },
  customer_import_errors: {
    display_name: 'Customer Import Errors',
    info: 'Rows of an import job that failed: line, field and message.',
  },
  idempotency_keys: {
    display_name: 'Idempotency Keys',
    info: 'Idempotency-Key headers of POST requests per caller: the claim of a running request and, for 24 hours, its answer.',
    columns: {
      scope: { info: 'The caller: user id and tenant id.' },
      request_hash: { info: 'SHA-256 of the method, path and body of the first request with this key.' },
      owner: { info: 'The request holding the claim.' },
      response_body: { app_type: 'json', info: 'The answer replayed to repeats.' },
      locked_until: { app_type: 'epoch_ms', info: 'Until when the claim of a running request holds.' },
      expires_at: { app_type: 'epoch_ms', info: 'When the key is forgotten.' },
    },
  },
  destinations: {
    display_name: 'Destinations',
    info: 'Delivery targets (webhook, e-mail, AMQP, file ...) with their connection details and delivery health.',
    columns: {
      connection_details: { app_type: 'json', info: 'As sent, every secret answered as ********.' },
      secrets: { info: 'The secrets of the connection details, sealed (AES-256-GCM under DESTINATION_SECRET_KEY).' },
      signing_secret: { info: 'The generated signing secret of a webhook destination, sealed.' },
      previous_signing_secret: {
        info: 'The signing secret before the last rotation, sealed; signs beside the new one.',
      },
      previous_signing_secret_expires_at: {
        app_type: 'epoch_ms',
        info: 'When the previous signing secret stops signing.',
      },
      last_error: { info: 'Why the last failed delivery failed.' },
      consecutive_failures: { info: 'Failed deliveries since the last successful one.' },
    },
  },
  campaign_destinations: {
    display_name: 'Campaign Destinations',
    info: 'Destinations configured for a campaign, optionally for one treatment group, with an attribute mapping.',
    columns: { attribute_mapping: { app_type: 'json' } },
  },
  campaign_validation_rules: {
    display_name: 'Campaign Validation Rules',
    info: 'Validation rules attached to a campaign, each with an optional override.',
    columns: { rule_override: { app_type: 'json' } },
  },
};
