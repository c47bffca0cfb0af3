import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { bearerToken } from '../auth/bearer-token.js';

/**
 * The global rate limiter (API-CONVENTIONS §9): one budget per user across every route,
 * per IP when anonymous, with the limit headers on every answer, 429s included.
 * It runs before authentication, so it identifies the user from the token's signature alone.
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly jwt: JwtService,
  ) {
    super(options, storage, reflector);
  }

  protected async getTracker(req: Request): Promise<string> {
    const token = bearerToken(req);
    if (token) {
      try {
        const { sub } = this.jwt.verify<{ sub?: unknown }>(token);
        if (sub !== undefined) return `user:${String(sub)}`;
      } catch {
        // An invalid token is throttled by address; authentication will refuse it.
      }
    }
    return `ip:${req.ip}`;
  }

  protected generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const res = context.switchToHttp().getResponse<Response>();
    res.setHeader('x-ratelimit-limit', String(detail.limit));
    res.setHeader('x-ratelimit-remaining', '0');
    res.setHeader('retry-after', String(Math.max(1, detail.timeToBlockExpire)));
    return super.throwThrottlingException(context, detail);
  }
}
