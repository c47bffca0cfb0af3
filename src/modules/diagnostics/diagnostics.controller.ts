import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/public.decorator.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { DiagnosticsService } from './diagnostics.service.js';
import {
  ConnectionFailureBody,
  ConnectionStatus,
  HealthStatus,
  SchemaFailureBody,
  TableEntry,
} from './dto/diagnostics.responses.js';
import { ResponseMessage } from '../../common/http/route-behaviour.js';

@ApiTags('Diagnostics')
@Public()
@Controller()
export class DiagnosticsController {
  constructor(private readonly diagnostics: DiagnosticsService) {}

  @Get('db/test')
  @ApiOperation({ summary: 'Test the database connection' })
  @ResponseMessage('Database connection successful.')
  @ApiEnvelope(ConnectionStatus)
  @ApiResponse({ status: 500, description: 'The database cannot be reached', type: ConnectionFailureBody })
  connectionStatus(): Promise<ConnectionStatus> {
    return this.diagnostics.connectionStatus();
  }

  @Get('db-test')
  @ApiOperation({ summary: 'Quick database check' })
  @ResponseMessage('Database connection is working.')
  @ApiEnvelope(null)
  async ping(): Promise<null> {
    await this.diagnostics.ping();
    return null;
  }

  @Get('tables')
  @ApiOperation({ summary: 'List every table of the database with its columns' })
  @ResponseMessage('Tables retrieved successfully.')
  @ApiEnvelope(TableEntry, { list: 'array' })
  tables(): Promise<TableEntry[]> {
    return this.diagnostics.tables();
  }

  @Get('db/schema')
  @ApiOperation({ summary: 'The database schema with display names, application types and descriptions' })
  @ResponseMessage('Database schema retrieved successfully.')
  @ApiEnvelope(TableEntry, { list: 'array' })
  @ApiResponse({ status: 500, description: 'The schema could not be read', type: SchemaFailureBody })
  schema(): Promise<TableEntry[]> {
    return this.diagnostics.schema();
  }

  @Get('health')
  @ApiOperation({ summary: 'Liveness and database ping, for load balancers and HEALTHCHECK' })
  @ResponseMessage('OK')
  @ApiEnvelope(HealthStatus)
  health(): Promise<HealthStatus> {
    return this.diagnostics.health();
  }
}
