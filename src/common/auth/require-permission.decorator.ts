import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import { ErrorBodyDto } from '../openapi/common-responses.js';
import type { PermissionName } from './permissions.js';

export const REQUIRED_PERMISSION = 'required_permission';

/** The permission a route needs (checked by PermissionGuard); documents the 403 answer too. */
export const RequirePermission = (permission: PermissionName) =>
  applyDecorators(
    SetMetadata(REQUIRED_PERMISSION, permission),
    ApiForbiddenResponse({ description: `Token valid, permission \`${permission}\` missing`, type: ErrorBodyDto }),
  );
