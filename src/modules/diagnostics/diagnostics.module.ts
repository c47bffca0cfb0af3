import { Module } from '@nestjs/common';
import { DiagnosticsController } from './diagnostics.controller.js';
import { DiagnosticsService } from './diagnostics.service.js';
import { MetadataSeeder } from './metadata-seeder.js';
import { SchemaInspector } from './schema-inspector.js';

@Module({
  controllers: [DiagnosticsController],
  providers: [DiagnosticsService, SchemaInspector, MetadataSeeder],
})
export class DiagnosticsModule {}
