import {
  ForbiddenException,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AuthUser } from './auth-user.js';
import { IS_PUBLIC } from './public.decorator.js';
import { REQUIRED_PERMISSION } from './require-permission.decorator.js';

/**
 * Deny by default: a route not marked @Public() needs an identified caller (401 otherwise), and a
 * route marked @RequirePermission needs that permission (403 otherwise).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthUser }>().user;
    if (!user) throw new UnauthorizedException();
    const permission = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_PERMISSION, targets);
    if (permission && !user.permissions.has(permission)) throw new ForbiddenException();
    return true;
  }
}
