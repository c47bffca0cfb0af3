import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ActivityLogController } from './activity-log.controller.js';
import { ActivityLogService } from './activity-log.service.js';
import { RoleAssignments } from './role-assignments.js';
import { RolesController } from './roles.controller.js';
import { RolesService } from './roles.service.js';
import { TenantsController } from './tenants.controller.js';
import { TenantsService } from './tenants.service.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';
import { UsageController } from './usage.controller.js';
import { UsageService } from './usage.service.js';

/** Users, tenants (and their plans' usage), roles and permissions, and the activity log. */
@Module({
  imports: [AuthModule],
  controllers: [UsersController, TenantsController, RolesController, ActivityLogController, UsageController],
  providers: [UsersService, TenantsService, RolesService, ActivityLogService, RoleAssignments, UsageService],
})
export class AdminModule {}
