import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';

export class ConnectionStatus {
  @ApiProperty({ enum: ['mysql', 'sqlite'] })
  connection: 'mysql' | 'sqlite';

  @ApiProperty({ example: 'campaigns' })
  database: string;

  @ApiProperty({ example: 'connected' })
  status: 'connected';
}

/** What waits in one queue of background work. */
export class QueueBacklogStatus {
  @ApiProperty({ description: 'Jobs due that no instance holds' })
  pending: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'How long the oldest of them has been due, in seconds (null when none is)',
  })
  oldest_pending_seconds: number | null;
}

@ApiExtraModels(QueueBacklogStatus)
export class HealthStatus {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description:
      "`degraded`: serving, but a dependency other than the database is down, or a queue's oldest job has waited " +
      'past its bound (docs/operations.md)',
  })
  status: 'ok' | 'degraded';

  @ApiProperty({ enum: ['up'], description: 'The database answered a ping (otherwise the answer is 503)' })
  database: 'up';

  @ApiProperty({
    enum: ['up', 'down', 'not_configured'],
    description:
      'Redis (REDIS_URL), where the rate-limit counters are shared: `up` (connected), `down` (unreachable: ' +
      '`status` is `degraded` and each instance counts alone until it returns), or `not_configured` (no REDIS_URL)',
  })
  redis: 'up' | 'down' | 'not_configured';

  @ApiProperty({
    enum: ['in-process', 'shared', 'degraded'],
    description:
      'Rate-limit counters: in this process (no REDIS_URL), shared in Redis, or `degraded` (Redis unreachable: per instance until it returns)',
  })
  rate_limit_counters: 'in-process' | 'shared' | 'degraded';

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(QueueBacklogStatus) },
    description:
      'Each queue of background work (customer-import, customer-erasure, webhook-fanout, webhook-delivery, ' +
      'webhook-retention, event-retention): what waits in it, its lanes added up (by lane: GET /metrics)',
  })
  jobs: Record<string, QueueBacklogStatus>;
}

export class FieldDescriptor {
  @ApiProperty({ example: 'email' })
  name: string;

  @ApiProperty({ type: String, nullable: true, example: 'E-mail' })
  display_name: string | null;

  @ApiProperty({ example: 'varchar(255)' })
  db_type: string;

  @ApiProperty({ type: String, nullable: true, example: 'email' })
  app_type: string | null;

  @ApiProperty()
  nullable: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: '`NULL` for nullable columns without default; null for required columns without default.',
  })
  default: string | null;

  @ApiProperty()
  auto_incrementing: boolean;

  @ApiProperty({ type: String, nullable: true })
  info: string | null;
}

export class TableEntry {
  @ApiProperty({ example: 'users' })
  table_name: string;

  @ApiProperty({ type: String, nullable: true, example: 'Users' })
  table_display_name: string | null;

  @ApiProperty({ type: String, nullable: true })
  info: string | null;

  @ApiProperty({ type: [FieldDescriptor] })
  fields: FieldDescriptor[];
}

class ConnectionFailureData {
  @ApiProperty({ enum: ['mysql', 'sqlite'] })
  connection: string;

  @ApiProperty()
  database: string;

  @ApiProperty({ example: 'connect ECONNREFUSED 127.0.0.1:3306' })
  error: string;
}

export class ConnectionFailureBody {
  @ApiProperty({ example: 500 })
  code: number;

  @ApiProperty({ example: 'Database connection failed.' })
  message: string;

  @ApiProperty({ type: ConnectionFailureData })
  data: ConnectionFailureData;
}

class SchemaFailureData {
  @ApiProperty()
  error: string;
}

export class SchemaFailureBody {
  @ApiProperty({ example: 500 })
  code: number;

  @ApiProperty({ example: 'Failed to retrieve database schema.' })
  message: string;

  @ApiProperty({ type: SchemaFailureData })
  data: SchemaFailureData;
}
