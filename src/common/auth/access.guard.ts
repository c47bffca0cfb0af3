import {
  ForbiddenException,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadataCache } from '../http/route-metadata.js';
import type { AuthUser } from './auth-user.js';
import { IS_PUBLIC } from './public.decorator.js';
import { REQUIRED_PERMISSION } from './require-permission.decorator.js';

/**
 * Deny by default: a route not marked @Public() needs an identified caller (401 otherwise), and a
 * route marked @RequirePermission needs that permission (403 otherwise).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly rules: RouteMetadataCache<{ isPublic: boolean; permission: string | undefined }>;

  constructor(reflector: Reflector) {
    this.rules = new RouteMetadataCache((handler, controller) => ({
      isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) === true,
      permission: reflector.getAllAndOverride<string | undefined>(REQUIRED_PERMISSION, [handler, controller]),
    }));
  }

  canActivate(context: ExecutionContext): boolean {
    const { isPublic, permission } = this.rules.of(context);
    if (isPublic) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthUser }>().user;
    if (!user) throw new UnauthorizedException();
    if (permission && !user.permissions.has(permission)) throw new ForbiddenException();
    return true;
  }
}
